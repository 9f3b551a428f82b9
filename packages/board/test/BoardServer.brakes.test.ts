import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { attrs, texts } from "./support/html"
import { boardSettings, eventually, REPOSITORY, runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
const json = (body: string) => JSON.parse(body) as any

const budgeted = { budget: { dailyTokens: 1000 }, maxNoProgress: 2 }
const settings = {
  loops: boardSettings().loops.map((loop) => (loop.name === "build" ? { ...loop, ...budgeted, maxOpenPullRequests: 3 } : loop))
}

describe("Board budgets and brakes", () => {
  it.scoped("a reached daily cap is on Needs you, Loops and Usage; raising it lets the held Run go", () =>
    Effect.gen(function* () {
      const { brakes, client, engine, memory, store } = yield* startBoard({ settings, build: budgeted })
      const browser = client()
      const spender = submission({ number: 1 })
      memory.script(runOf(spender), Script.succeed(undefined, {
        usage: [{ after: 0, usage: { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 400, costUsd: 0.5 } }],
        result: { commits: ["c1"], pullRequestNumber: 40 }
      }))
      yield* engine.submit(spender)
      yield* untilState(store, runOf(spender), "Succeeded")
      const held = submission({ number: 2 })
      yield* engine.submit(held)
      yield* eventually("held", () => Effect.map(brakes.runHold(runOf(held)), Option.isSome))

      const needs = json((yield* promise(() => browser.get("/api/needs-you"))).body)
      assert.deepStrictEqual(needs.brakes.capsReached.map((c: any) => [c.loop, c.tokens, c.configuredTokens]), [["build", 1000, 1000]])
      assert.deepStrictEqual(needs.brakes.held.map((h: any) => [h.runId, h.kind, h.state]), [[runOf(held), "DailyCap", "Pending"]])
      const page = (yield* promise(() => browser.get("/"))).body
      assert.deepStrictEqual(attrs(page, "cap-reached", "data-scope"), ["build"])
      assert.deepStrictEqual(attrs(page, "held-run", "data-run-id"), [runOf(held)])
      assert.include(texts(page, "held-reason")[0] ?? "", "loop build used 1,200 tokens of its daily cap of 1,000 tokens")
      assert.deepStrictEqual(attrs(page, "raise-tokens-build", "value"), ["2000"])

      const loops = (yield* promise(() => browser.get("/loops"))).body
      assert.deepStrictEqual(texts(loops, "loop-cap"), ["1,200 of 1,000 tokens today (UTC)"])
      assert.deepStrictEqual(texts(loops, "loop-wip"), ["1 of 3 acme/app#40"])
      const usage = json((yield* promise(() => browser.get("/api/usage"))).body)
      const built = usage.loops.find((row: any) => row.name === "build")
      assert.deepStrictEqual([built.day, built.usage.inputTokens, built.usage.outputTokens, built.usage.costUsd], ["1970-01-01", 1000, 200, 0.5])
      assert.deepStrictEqual(usage.repositories.map((row: any) => row.name), ["acme/app"])
      const usagePage = (yield* promise(() => browser.get("/usage"))).body
      assert.include(texts(usagePage, "usage-total"), "1,200 tokens ($0.50)")

      const low = yield* promise(() => browser.act("/budgets/raise", { loop: "build", tokens: 500 }))
      assert.deepStrictEqual([low.status, low.body.error], [400, "CapRaiseTooLow"])
      const none = yield* promise(() => browser.act("/budgets/raise", { loop: "gated", tokens: 5000 }))
      assert.deepStrictEqual([none.status, none.body.error], [409, "DailyCapNotSet"])
      const empty = yield* promise(() => browser.act("/budgets/raise", { loop: "build" }))
      assert.deepStrictEqual([empty.status, empty.body.field, empty.body.message], [400, "tokens", "tokens: give tokens or costUsd"])
      for (let i = 0; i < 2; i++) {
        const raised = yield* promise(() => browser.act("/budgets/raise", { loop: "build", tokens: 2000 }))
        assert.deepStrictEqual([raised.status, raised.body.tokens], [200, 2000])
      }
      yield* untilState(store, runOf(held), "Succeeded")
      assert.deepStrictEqual(json((yield* promise(() => browser.get("/api/needs-you"))).body).brakes.capsReached, [])

      // The Run's timeline says why it waited and why it went, though the hold itself is gone.
      const run = json((yield* promise(() => browser.get(`/api/runs/${runOf(held)}`))).body)
      const runHtml = (yield* promise(() => browser.get(`/runs/${runOf(held)}`))).body
      assert.deepStrictEqual(
        run.timeline.map((t: any) => t.what),
        ["opened Pending", "held by a daily cap", "released after 0s", "Pending → Running", "Attempt 1 started on w1",
          "Attempt 1 succeeded", "Running → Succeeded"]
      )
      const [heldLine, released] = run.timeline.filter((t: any) => t.note !== undefined)
      assert.include(heldLine.why, "loop build used 1,200 tokens of its daily cap of 1,000 tokens")
      assert.strictEqual(released.why, "the operator raised the daily cap of loop build")
      assert.deepStrictEqual(texts(runHtml, "timeline-what"), run.timeline.map((t: any) => t.what))
      assert.deepStrictEqual(attrs(runHtml, "timeline-entry", "data-note"), ["", "Held", "Released", "", "", "", ""])
    }))

  it.scoped("a parked Item shows its evidence on Needs you; letting it run again starts its held Run once", () =>
    Effect.gen(function* () {
      const { brakes, client, engine, store } = yield* startBoard({ settings, build: { maxNoProgress: 2 } })
      const browser = client()
      for (const content of ["a", "b"]) {
        const s = submission({ number: 7, content })
        yield* engine.submit(s)
        yield* untilState(store, runOf(s), "Succeeded")
      }
      const third = submission({ number: 7, content: "c" })
      yield* engine.submit(third)
      yield* eventually("held", () => Effect.map(brakes.runHold(runOf(third)), Option.isSome))
      const page = (yield* promise(() => browser.get("/"))).body
      assert.deepStrictEqual(attrs(page, "parked-item", "data-item-key"), [itemKeyOf(REPOSITORY, 7)])
      assert.deepStrictEqual(texts(page, "parked-evidence"), ["succeeded without a commit\nsucceeded without a commit"])
      assert.deepStrictEqual(attrs(page, "held-run", "data-kind"), ["NoProgress"])

      const fields = { loop: "build", itemKey: itemKeyOf(REPOSITORY, 7) }
      const cleared = yield* promise(() => browser.act("/brakes/clear-no-progress", fields))
      assert.deepStrictEqual([cleared.status, cleared.body.cleared], [200, true])
      yield* untilState(store, runOf(third), "Succeeded")
      const notes = json((yield* promise(() => browser.get(`/api/runs/${runOf(third)}`))).body).timeline.filter((t: any) => t.note)
      assert.deepStrictEqual(notes.map((t: any) => [t.what, t.why]), [
        ["held by the no-progress brake", "parked after 2 Attempts without progress on this Item: succeeded without a commit; succeeded without a commit"],
        ["released after 0s", "the operator let the Item run again"]
      ])
      const again = yield* promise(() => browser.act("/brakes/clear-no-progress", fields))
      assert.deepStrictEqual([again.status, again.body.cleared], [200, false])
      const malformed = yield* promise(() => browser.act("/brakes/clear-no-progress", { loop: "build", itemKey: "7" }))
      assert.deepStrictEqual([malformed.status, malformed.body.field], [400, "itemKey"])
    }))
})
