import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { CHART, pointAt } from "@usine/board/pages/usageChartGeometry"
import { runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Every `<circle data-testid="usage-point" …>` of one chart, with its attributes. */
const pointsOf = (html: string, metric: string) => {
  const chart = new RegExp(`data-testid="usage-chart-${metric}"[\\s\\S]*?</figure>`).exec(html)?.[0] ?? ""
  return [...chart.matchAll(/<circle ([^>]*)>/g)].map((m) => {
    const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(m[1] ?? "")?.[1] ?? ""
    return { loop: attr("data-loop"), day: attr("data-day"), value: Number(attr("data-value")), cx: Number(attr("cx")), cy: Number(attr("cy")) }
  })
}

describe("Board usage chart", () => {
  it.scoped("Usage draws tokens and cost per day by Loop as SVG whose points are the API's figures", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const spent = [
        { input: submission({ number: 1 }), usage: { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 400, costUsd: 0.5 } },
        { input: submission({ number: 2, loop: "gated" }), usage: { inputTokens: 300, outputTokens: 100, cachedInputTokens: 0, costUsd: 0.25 } }
      ]
      for (const { input, usage } of spent) {
        memory.script(runOf(input), Script.succeed(undefined, { usage: [{ after: 0, usage }], result: { commits: ["c1"] } }))
        yield* engine.submit(input)
        if (input.loop === "gated") {
          yield* untilState(store, runOf(input), "Waiting")
          yield* promise(() => browser.act(`/runs/${runOf(input)}/approve`))
        }
        yield* untilState(store, runOf(input), "Succeeded")
      }

      const api = JSON.parse((yield* promise(() => browser.get("/api/usage"))).body) as {
        days: ReadonlyArray<string>
        loops: ReadonlyArray<{ day: string; name: string; usage: { inputTokens: number; outputTokens: number; costUsd?: number } }>
      }
      assert.deepStrictEqual(api.loops.map((r) => r.name), ["build", "gated"])
      const page = (yield* promise(() => browser.get("/usage"))).body
      const tokens = pointsOf(page, "tokens")
      const cost = pointsOf(page, "cost")
      // One point per Loop and day: a day without usage is 0.
      assert.strictEqual(tokens.length, 2 * api.days.length)
      assert.strictEqual(cost.length, 2 * api.days.length)
      const oldestFirst = [...api.days].reverse()
      const maxTokens = Math.max(...api.loops.map((r) => r.usage.inputTokens + r.usage.outputTokens))
      const maxCost = Math.max(...api.loops.map((r) => r.usage.costUsd ?? 0))
      for (const point of tokens) {
        const row = api.loops.find((r) => r.name === point.loop && r.day === point.day)
        const value = row === undefined ? 0 : row.usage.inputTokens + row.usage.outputTokens
        assert.strictEqual(point.value, value, `${point.loop} ${point.day}`)
        assert.deepStrictEqual({ x: point.cx, y: point.cy }, pointAt(oldestFirst.indexOf(point.day), api.days.length, value, maxTokens))
      }
      for (const point of cost) {
        const row = api.loops.find((r) => r.name === point.loop && r.day === point.day)
        assert.strictEqual(point.value, row?.usage.costUsd ?? 0, `${point.loop} ${point.day}`)
        assert.deepStrictEqual({ x: point.cx, y: point.cy }, pointAt(oldestFirst.indexOf(point.day), api.days.length, row?.usage.costUsd ?? 0, maxCost))
      }
      // The largest figure touches the top of the plot; a zero sits on the axis; the newest day is rightmost.
      const top = tokens.find((p) => p.loop === "build" && p.value === 1200)
      assert.strictEqual(top?.cy, CHART.top)
      assert.strictEqual(top?.cx, CHART.width - CHART.right)
      assert.strictEqual(tokens.find((p) => p.value === 0)?.cy, CHART.height - CHART.bottom)
      assert.include(page, "<title>gated, 1970-01-01: 400</title>")
    }))
})
