import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, Option } from "effect"
import type { UsageView } from "@usine/board/BoardViews/usageView"
import { REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { BoardWorld } from "./support/BoardWorld"
import { chromiumMissing } from "./support/scopedBrowser"
import { noProblems, scopedPage } from "./support/scopedPage"
import { SHOWCASE_LABELS } from "./support/showcaseConfig"
import { ShowcaseWorldLive } from "./support/ShowcaseWorld"
import { step } from "./support/step"

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly loop: string; readonly state: string; readonly number: number }> }
}

/** One drawn point as Chromium has it: its data, its hover title, and where it landed on the screen. */
interface DrawnPoint {
  readonly loop: string
  readonly day: string
  readonly value: number
  readonly title: string
  readonly y: number
}

const suite = chromiumMissing === undefined ? "Usage's chart in Chromium against usine up" : `SKIPPED: ${chromiumMissing}`

describe.skipIf(chromiumMissing !== undefined && process.env["CI"] !== "true")(suite, () => {
  layer(ShowcaseWorldLive, { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("Usage shows tokens and cost per day by Loop whose points are /api/usage's figures", () =>
      Effect.gen(function* () {
        const { browser, sim, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        const open = (title: string, labels: ReadonlyArray<string>) =>
          Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body: title, labels: [...labels] }))
        const feature = yield* open("Add deslugify", [SHOWCASE_LABELS.ready, SHOWCASE_LABELS.enhancement])
        const bug = yield* open("slugify keeps punctuation", [SHOWCASE_LABELS.ready, SHOWCASE_LABELS.bug])

        yield* step(() => page.goto(url))
        const waiting = page.locator('[data-testid="waiting-run"]', { hasText: new RegExp(`${REPOSITORY}#${bug.number}(?!\\d)`) })
        yield* step(() => waiting.waitFor({ timeout: 60_000 }))
        const runId = (yield* step(() => waiting.getAttribute("data-run-id"))) ?? ""
        yield* step(() => page.click(`[data-testid="approve-${runId}"]`))
        yield* step(() => page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())
        yield* eventually(
          "both Runs succeed",
          Effect.map(board<RunsJson>(url, "/api/runs"), (runs) => {
            const done = runs.page.runs.filter((r) => r.state === "Succeeded").map((r) => r.number)
            return done.includes(feature.number) && done.includes(bug.number) ? Option.some(done) : Option.none()
          }),
          120
        ).pipe(Effect.orDie)

        yield* step(() => page.goto(`${url}usage`))
        const api = yield* board<UsageView>(url, "/api/usage")
        assert.deepStrictEqual([...new Set(api.loops.map((r) => r.name))].sort(), ["build-features", "fix-bugs"])
        for (const [metric, figure] of [
          ["tokens", (u: UsageView["loops"][number]["usage"]) => u.inputTokens + u.outputTokens],
          ["cost", (u: UsageView["loops"][number]["usage"]) => u.costUsd ?? 0]
        ] as const) {
          const chart = page.locator(`[data-testid="usage-chart-${metric}"]`)
          const points: ReadonlyArray<DrawnPoint> = yield* step(() =>
            chart.locator('[data-testid="usage-point"]').evaluateAll((els) =>
              els.map((el) => {
                const box = el.getBoundingClientRect()
                return {
                  loop: el.getAttribute("data-loop") ?? "",
                  day: el.getAttribute("data-day") ?? "",
                  value: Number(el.getAttribute("data-value")),
                  title: el.textContent ?? "",
                  y: box.top + box.height / 2
                }
              })
            ))
          // One point per Loop and day of the API's days; a day without usage is 0.
          assert.strictEqual(points.length, 2 * api.days.length, metric)
          for (const point of points) {
            const row = api.loops.find((r) => r.name === point.loop && r.day === point.day)
            assert.strictEqual(point.value, row === undefined ? 0 : figure(row.usage), `${metric} ${point.loop} ${point.day}`)
          }
          for (const row of api.loops) {
            assert.isAbove(figure(row.usage), 0, `${metric} of ${row.name} on ${row.day}`)
            assert.isDefined(points.find((p) => p.loop === row.name && p.day === row.day && p.value === figure(row.usage)))
          }
          // Chromium drew them where the figures say: the largest highest on the screen, a zero on the axis below.
          const sorted = [...points].sort((a, b) => b.value - a.value)
          const [top, zero] = [sorted[0], sorted.at(-1)]
          assert.isAbove(zero?.y ?? 0, top?.y ?? 0, `${metric}: the largest figure is drawn above a zero`)
          if (metric === "tokens") assert.strictEqual(top?.title, `${top?.loop}, ${top?.day}: ${top?.value.toLocaleString("en-US")}`)
        }
        yield* noProblems(tab)
      }), 180_000)
  })
})
