import AxeBuilder from "@axe-core/playwright"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, Option } from "effect"
import type { BoardView } from "@usine/board/BoardViews/boardView"
import { REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { BoardWorld } from "./support/BoardWorld"
import { chromiumMissing } from "./support/scopedBrowser"
import { noProblems, scopedPage } from "./support/scopedPage"
import { screen } from "./support/screenshot"
import { SHOWCASE_LABELS as L } from "./support/showcaseConfig"
import { ShowcaseWorldLive } from "./support/ShowcaseWorld"
import { step } from "./support/step"

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly loop: string; readonly state: string; readonly number: number }> }
}

/** Relative luminance (WCAG) of a computed `rgb(r, g, b)` colour. */
const luminance = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)
}

/** A PNG of a 1280×800 viewport stays small enough to commit. */
const MAX_BYTES = 400_000

const suite = chromiumMissing === undefined ? "screenshots of every page in Chromium against usine up" : `SKIPPED: ${chromiumMissing}`

describe.skipIf(chromiumMissing !== undefined && process.env["CI"] !== "true")(suite, () => {
  layer(ShowcaseWorldLive, { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("every page, with a succeeded Run and its change, a waiting approval, a failed Run, usage and CI on cards, in light and dark: pictured, axe-clean, dark really dark, none scrolling sideways on a phone", () =>
      Effect.gen(function* () {
        const { browser, sim, url } = yield* BoardWorld
        const open = (title: string, body: string, labels: ReadonlyArray<string>) =>
          Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body, labels: [...labels] }))
        const runsOf = Effect.map(board<RunsJson>(url, "/api/runs"), (runs) => runs.page.runs)
        /** The Item's Runs as the Run pages' JSON shows them, transcripts included: why a wait failed. */
        const seen = (number: number) =>
          Effect.flatMap(runsOf, (runs) => Effect.forEach(runs.filter((r) => r.number === number), (r) => board<unknown>(url, `/api/runs/${r.id}`)))
        const runOf = (number: number, state: string, seconds = 120) =>
          eventually(`#${number} has a ${state} Run`, Effect.map(runsOf, (runs) =>
            Option.fromNullable(runs.find((r) => r.number === number && r.state === state))), seconds).pipe(
            Effect.catchAll((error) =>
              Effect.flatMap(seen(number), (views) => Effect.dieMessage(`${String(error)}: ${JSON.stringify(views).slice(0, 6000)}`))),
            Effect.orDie
          )

        const bug = yield* open("slugify keeps punctuation", '`slugify("Hello, World!")` returns `hello,-world!`; it should return `hello-world`.', [L.ready, L.bug])
        const feature = yield* open("Add deslugify", 'A `deslugify("release-notes")` that gives back `Release notes`, with tests.', [L.ready, L.enhancement])
        const flaky = yield* open("CI times out on Node 22", "The test job hangs after the slugify suite.", [L.triage])
        yield* open("Support titles in other scripts", "`slugify` drops every letter outside a-z. Should it transliterate?", [L.idea])

        const waiting = yield* runOf(bug.number, "Waiting")
        yield* Effect.scoped(Effect.gen(function* () {
          const { page } = yield* scopedPage(browser)
          yield* step(() => page.goto(url))
          yield* step(() => page.click(`[data-testid="approve-${waiting.id}"]`))
          yield* step(() => page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())
        }))
        const built = yield* runOf(feature.number, "Succeeded")
        yield* runOf(bug.number, "Succeeded")
        yield* runOf(flaky.number, "Failed")
        const capitals = yield* open("Slugs of titles in capitals", "Should `SHOUTING` stay shouted?", [L.ready, L.bug])
        yield* runOf(capitals.number, "Waiting")

        const pullOf = (number: number) =>
          eventually(`#${number}'s card shows its pull request`, Effect.map(board<BoardView>(url, "/api/board"), (view) =>
            Option.fromNullable(view.columns.flatMap((c) => c.cards).find((c) => c.number === number)?.latestRun?.pullRequest?.number))).pipe(Effect.orDie)
        const featurePull = yield* pullOf(feature.number)
        const bugPull = yield* pullOf(bug.number)
        const check = (number: number, name: string, conclusion: "success" | "failure") =>
          Effect.promise(() => sim.control.addCheckRun({ repo: REPOSITORY, number, name, conclusion }))
        yield* check(featurePull, "unit-tests", "success")
        yield* check(featurePull, "lint", "success")
        yield* check(bugPull, "unit-tests", "failure")
        yield* check(bugPull, "lint", "success")
        yield* Effect.promise(() => sim.control.addCommitStatus({ repo: REPOSITORY, number: bugPull, context: "coverage", state: "pending" }))
        yield* eventually("both cards show their CI", Effect.map(board<BoardView>(url, "/api/board"), (view) => {
          const cards = view.columns.flatMap((c) => c.cards)
          const totals = [feature.number, bug.number].map((n) => cards.find((c) => c.number === n)?.latestRun?.pullRequest?.checks?.total)
          return totals.every((t) => t !== undefined && t >= 2) ? Option.some(totals) : Option.none()
        })).pipe(Effect.orDie)

        const pages = [
          ["needs-you", "", '[data-testid="waiting-run"]'],
          ["board", "board", '[data-testid="card-ci"]'],
          ["runs", "runs", '[data-testid="runs-filter"]'],
          ["run", `runs/${built.id}`, '[data-testid="run-state"]'],
          ["run-change", `runs/${built.id}`, '[data-testid="change"] [data-testid="patch-file"]'],
          ["loops", "loops", '[data-testid="loop"][data-loop="fix-bugs"]'],
          ["usage", "usage", '[data-testid="usage-point"]'],
          ["workers", "workers", '[data-testid="worker"][data-worker="local"]'],
          ["login", "login", '[data-testid="login"]']
        ] as const
        const sizes: Array<string> = []
        const violations: Array<string> = []
        const schemes: Array<string> = []
        for (const scheme of ["light", "dark"] as const) {
          for (const [name, path, content] of pages) {
            yield* Effect.scoped(Effect.gen(function* () {
              const tab = yield* scopedPage(browser)
              const { page } = tab
              yield* step(() => page.setViewportSize({ width: 1280, height: 800 }))
              yield* step(() => page.emulateMedia({ colorScheme: scheme }))
              yield* step(() => page.goto(`${url}${path}`))
              const shown = page.locator(content).first()
              yield* step(() => shown.waitFor())
              if (name === "run-change") yield* step(() => page.locator('[data-testid="change"]').evaluate((el) => el.scrollIntoView()))
              const { bytes, file } = yield* screen(page, `${name}-${scheme}`)
              assert.isBelow(bytes, MAX_BYTES, file)
              sizes.push(`${name}-${scheme} ${Math.round(bytes / 1024)} KiB`)
              // The page's own colours follow the scheme: dark text on a light ground, then the other way round.
              const [bg, fg] = yield* step(() => page.evaluate<[string, string]>(
                "[getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.documentElement).color]"))
              const light = luminance(bg) > 0.7 && luminance(fg) < 0.1
              const dark = luminance(bg) < 0.05 && luminance(fg) > 0.5
              if (!(scheme === "light" ? light : dark)) schemes.push(`${name} in ${scheme}: background ${bg}, text ${fg}`)
              // With its data in: the Run's change, Usage's chart, cards with CI.
              const result = yield* step(() => new AxeBuilder({ page }).analyze())
              for (const v of result.violations) {
                if (v.impact === "serious" || v.impact === "critical") {
                  violations.push(`${name} in ${scheme}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`)
                }
              }
              yield* noProblems(tab)
            }))
          }
        }
        assert.deepStrictEqual(schemes, [], "every page follows the colour scheme")
        assert.deepStrictEqual(violations, [], "axe finds no serious or critical violation")

        const wide: Array<string> = []
        for (const [name, path, content] of pages) {
          yield* Effect.scoped(Effect.gen(function* () {
            const tab = yield* scopedPage(browser)
            const { page } = tab
            yield* step(() => page.setViewportSize({ width: 390, height: 844 }))
            yield* step(() => page.goto(`${url}${path}`))
            yield* step(() => page.locator(content).first().waitFor({ state: "attached" }))
            const over = yield* step(() => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
            if (over > 0) wide.push(`${name}: ${over} px too wide`)
            yield* noProblems(tab)
          }))
        }
        assert.deepStrictEqual(wide, [], "no page scrolls sideways at 390 px, the Run's change and Usage's chart included")
        console.log(`screenshots: ${sizes.join(", ")}`)
      }), 300_000)
  })
})
