import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptId } from "@usine/core/ids/AttemptId"
import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"
import { attemptPhases } from "@usine/board/BoardViews/attemptStrip"
import type { DayCounts } from "@usine/board/BoardViews/runsByDay"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { attrs } from "./support/html"
import { runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
const DAY = 86_400_000
const NOW = 20 * DAY + 5 * 3_600_000

/** The `<circle data-testid="runs-point" …>` of the Runs chart: state, day, value. */
const pointsOf = (html: string) =>
  [...html.matchAll(/<circle ([^>]*data-testid="runs-point"[^>]*)>/g)].map((m) => {
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(m[1] ?? "")?.[1] ?? ""
    return { state: attr("data-state"), day: attr("data-day"), value: Number(attr("data-value")) }
  })

describe("Board pictures: the Run's Attempt strip and Runs by state over days", () => {
  it.scoped("the Runs page draws each state's Runs per day of the last 14, points and table equal to the API's counts", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW)
      const { client, engine, store } = yield* startBoard()
      const browser = client()
      const received = [0, 0, 1, 3, 15].map((daysAgo, i) => submission({ number: i + 1, receivedAt: NOW - daysAgo * DAY - i }))
      const waiting = submission({ number: 9, loop: "gated", receivedAt: NOW - DAY })
      for (const s of received) yield* engine.submit(s)
      yield* engine.submit(waiting)
      for (const s of received) yield* untilState(store, runOf(s), "Succeeded")
      yield* untilState(store, runOf(waiting), "Waiting")

      const api = JSON.parse((yield* promise(() => browser.get("/api/runs"))).body) as { byDay: ReadonlyArray<DayCounts> }
      assert.strictEqual(api.byDay.length, 14)
      assert.deepStrictEqual([api.byDay[0]?.day, api.byDay.at(-1)?.day], ["1970-01-08", "1970-01-21"])
      const byDay = new Map(api.byDay.map((d) => [d.day, d.counts]))
      assert.deepStrictEqual(
        ["1970-01-21", "1970-01-20", "1970-01-18"].map((day) => [byDay.get(day)?.Succeeded, byDay.get(day)?.Waiting]),
        [[2, 0], [1, 1], [1, 0]],
        "the Run received 15 days ago is outside the chart"
      )

      const html = (yield* promise(() => browser.get("/runs"))).body
      const points = pointsOf(html)
      assert.deepStrictEqual([...new Set(points.map((p) => p.state))], ["Waiting", "Succeeded"], "a line per state seen")
      assert.strictEqual(points.length, 2 * 14)
      for (const p of points) {
        assert.strictEqual(p.value, byDay.get(p.day)?.[p.state as "Succeeded"], `${p.state} on ${p.day}`)
      }
      const table = /data-testid="runs-by-day"[\s\S]*?<\/table>/.exec(html)?.[0] ?? ""
      assert.match(table, /<tr data-day="1970-01-21"><th scope="row">1970-01-21<\/th><td data-state="Waiting">0<\/td><td data-state="Succeeded">2<\/td><\/tr>/)
      const filtered = JSON.parse((yield* promise(() => browser.get("/api/runs?loop=gated"))).body) as { byDay: ReadonlyArray<DayCounts> }
      assert.deepStrictEqual(filtered.byDay.map((d) => d.counts.Succeeded + d.counts.Waiting).filter((n) => n > 0), [1], "under the Loop filter")
    }))

  it.scoped("the Run page's strip has one bar per Attempt, with its outcome and words for it", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 4 })
      memory.script(runOf(run), Script.fail(new AgentFailure({ reason: "tests fail", evidence: "" })), Script.succeed())
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Failed")
      const version = (yield* store.getRun(runOf(run))).version
      yield* promise(() => browser.act(`/runs/${runOf(run)}/retry`, { version }))
      yield* untilState(store, runOf(run), "Succeeded")

      const html = (yield* promise(() => browser.get(`/runs/${runOf(run)}`))).body
      const api = JSON.parse((yield* promise(() => browser.get(`/api/runs/${runOf(run)}`))).body) as { attempts: ReadonlyArray<{ number: number; outcome: string }> }
      assert.deepStrictEqual(attrs(html, "attempt-bar", "data-outcome"), api.attempts.map((a) => a.outcome))
      assert.deepStrictEqual(attrs(html, "attempt-bar", "data-attempt"), ["1", "2"])
      const words = [...html.matchAll(/data-testid="attempt-strip-text">(?:<span[^>]*><\/span>)?([^<]*)</g)].map((m) => m[1])
      assert.deepStrictEqual(words.map((w) => w?.replace(/, .*$/, "")), ["Attempt 1: failed", "Attempt 2: succeeded"])
    }))

  it("reads an Attempt's phases from the executor's journal rows", () => {
    const attemptId = AttemptId("b".repeat(32))
    const rows: ReadonlyArray<TranscriptLine> = [
      { kind: "system", text: "workspace on local at 0123abcd (main); the work goes to usine/x", at: 1_000 },
      { kind: "system", text: "agent turn 1 started", at: 2_000 },
      { kind: "assistant", text: "done", at: 5_000 },
      { kind: "system", text: "agent turn 1 exited with code 0", at: 9_000 },
      { kind: "verify", text: "fail (round 1, exit 1): npm test", at: 12_000 },
      { kind: "system", text: "agent turn 2 started with the verification output", at: 12_500 },
      { kind: "error", text: "agent turn 2 exited with code 1", at: 20_000 },
      { kind: "verify", text: "pass (round 2, exit 0): npm test", at: 24_000 },
      { kind: "verify", text: "pass (round 2, exit 0): npm run lint", at: 25_000 }
    ].map((r, i) => ({ ...r, kind: r.kind as TranscriptLine["kind"], attemptId, seq: i + 1 }))
    const phases = attemptPhases(0, 30_000, rows)
    assert.deepStrictEqual(phases.map((p) => [p.name, p.from, p.to]), [
      ["setup", 0, 2_000],
      ["agent", 2_000, 9_000],
      ["verify", 9_000, 12_000],
      ["harvest", 12_000, 12_500],
      ["agent", 12_500, 20_000],
      ["verify", 20_000, 25_000],
      ["harvest", 25_000, 30_000]
    ])
    assert.deepStrictEqual(attemptPhases(0, 30_000, rows.filter((r) => r.kind === "assistant")), [], "no turn rows, no phases")
    const unverified = attemptPhases(0, 30_000, rows.filter((r) => r.kind !== "verify").slice(0, 4))
    assert.deepStrictEqual(unverified.map((p) => p.name), ["setup", "agent", "harvest"], "without verify commands the turn's end is harvest")
  })
})
