import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { REFUSED_SHOWN } from "@usine/board/BoardViews/needsYouView"
import { openEventStream } from "./support/EventStreamClient"
import { attrs, texts } from "./support/html"
import { eventually, REPOSITORY, SECRET, startBoard, submission } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

interface RefusedJson {
  readonly refused: {
    readonly recent: ReadonlyArray<{ loop: string; repository: string; number: number; reason: string; at: number }>
    readonly more: number
  }
  readonly failed: ReadonlyArray<unknown>
}

describe("Board: refused triggers", () => {
  it.scoped("Needs you lists refusals newest first, capped, with how many more; never as failures; Loops count them", () =>
    Effect.gen(function* () {
      const { client, refusals } = yield* startBoard()
      const browser = client()
      const empty = yield* promise(() => browser.get("/"))
      assert.notInclude(empty.body, 'data-testid="refused"', "no section while nothing was refused")
      assert.deepStrictEqual(JSON.parse((yield* promise(() => browser.get("/api/needs-you"))).body).refused, { recent: [], more: 0 })

      const total = REFUSED_SHOWN + 3
      for (let number = 1; number <= total; number++) {
        yield* TestClock.adjust(1_000)
        const loop = number % 2 === 0 ? "gated" : "build"
        yield* refusals.record(submission({ number, loop }), `label ready-for-agent was added by mallory-${number}, who has read access`)
      }
      yield* TestClock.adjust(1_000)
      yield* refusals.record(submission({ number: 99 }), `author eve pasted ${SECRET} and has no write access`)

      const html = (yield* promise(() => browser.get("/"))).body
      const json = JSON.parse((yield* promise(() => browser.get("/api/needs-you"))).body) as RefusedJson
      assert.strictEqual(json.refused.recent.length, REFUSED_SHOWN)
      assert.strictEqual(json.refused.more, total + 1 - REFUSED_SHOWN)
      assert.deepStrictEqual(
        json.refused.recent.map((r) => r.number),
        [99, ...Array.from({ length: REFUSED_SHOWN - 1 }, (_, i) => total - i)],
        "newest first"
      )
      assert.deepStrictEqual(attrs(html, "refused-trigger", "data-item"), json.refused.recent.map((r) => `${r.repository}#${r.number}`))
      assert.deepStrictEqual(attrs(html, "refused-trigger", "data-loop"), json.refused.recent.map((r) => r.loop))
      assert.deepStrictEqual(texts(html, "refused-reason"), json.refused.recent.map((r) => r.reason))
      assert.strictEqual(texts(html, "refused-reason")[1], `label ready-for-agent was added by mallory-${total}, who has read access`)
      assert.deepStrictEqual(texts(html, "refused-more"), [`${total + 1 - REFUSED_SHOWN} older refusals not shown.`])
      assert.include(html, `href="/runs?item=${encodeURIComponent(`${REPOSITORY}#99`)}"`, "each refusal links to its Item's Runs")
      assert.deepStrictEqual(json.failed, [], "a refusal is not a failure")
      assert.include(html, "No unresolved failure.")

      assert.notInclude(html + JSON.stringify(json), SECRET, "reasons pass the redactor")
      assert.include(json.refused.recent[0]?.reason ?? "", "[REDACTED:secret]")

      const loopsHtml = (yield* promise(() => browser.get("/loops"))).body
      const loops = JSON.parse((yield* promise(() => browser.get("/api/loops"))).body) as { loops: ReadonlyArray<{ name: string; refused: number }> }
      const odd = Math.ceil(total / 2) + 1
      assert.deepStrictEqual(loops.loops.map((l) => [l.name, l.refused]), [["build", odd], ["gated", total + 1 - odd]])
      assert.deepStrictEqual(texts(loopsHtml, "loop-refused"), [`Refused triggers: ${odd}`, `Refused triggers: ${total + 1 - odd}`])
    }))

  it.scoped("/events says `changed` when a trigger is refused", () =>
    Effect.gen(function* () {
      const { refusals, server } = yield* startBoard()
      const stream = yield* openEventStream(server.port, "/events", { host: `127.0.0.1:${server.port}` })
      yield* eventually("ready", () => stream.events.some((e) => e.event === "ready"))
      yield* TestClock.adjust("2 seconds")
      yield* eventually("quiet polls", () => true)
      assert.deepStrictEqual(stream.events.map((e) => e.event), ["ready"])
      yield* refusals.record(submission({ number: 5 }), "author eve has read access")
      yield* eventually("changed", () =>
        Effect.as(TestClock.adjust("1 second"), stream.events.some((e) => e.event === "changed")))
    }))
})
