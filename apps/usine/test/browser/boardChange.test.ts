import AxeBuilder from "@axe-core/playwright"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect } from "effect"
import { REPOSITORY } from "../support/daemonConfig"
import { BoardWorld, BoardWorldLive } from "./support/BoardWorld"
import { COLUMNS, FLAKY_LABEL, REVIEWED_LABEL } from "./support/browserConfig"
import { chromiumMissing } from "./support/scopedBrowser"
import { markDocument, stillSameDocument } from "./support/sameDocument"
import { noProblems, scopedPage } from "./support/scopedPage"
import { screenshot } from "./support/screenshot"
import { step } from "./support/step"

/** The Item's name as the Board prints it, not matching a longer number. */
const itemText = (number: number) => new RegExp(`${REPOSITORY}#${number}(?!\\d)`)

/** A line the demo agent writes for a deslugify issue: a new file's first line. */
const ADDED_LINE = "export const deslugify = (slug) => {"

const suite = chromiumMissing === undefined ? "the Board's change, cards and comfort in Chromium against usine up" : `SKIPPED: ${chromiumMissing}`

describe.skipIf(chromiumMissing !== undefined && process.env["CI"] !== "true")(suite, () => {
  layer(BoardWorldLive, { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("the change held at the review gate and the Run page of the succeeded Run show its added lines per file", () =>
      Effect.gen(function* () {
        const { browser, openIssue, pullRequestAt, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        yield* step(() => page.goto(url))
        const issue = yield* openIssue("Add deslugify", 'deslugify("release-notes") gives "Release notes"', REVIEWED_LABEL)

        const card = page.locator('[data-testid="reviewing-run"]', { hasText: itemText(issue.number) })
        yield* step(() => card.waitFor({ timeout: 60_000 }))
        const runId = (yield* step(() => card.getAttribute("data-run-id"))) ?? ""
        const held = card.locator('[data-testid="patch-file"][data-path="src/deslugify.js"]')
        assert.strictEqual(yield* step(() => held.getAttribute("data-status")), "added")
        assert.include(yield* step(() => held.locator('[data-testid="patch-add"] code').allInnerTexts()), `+${ADDED_LINE}`)
        yield* screenshot(page, "needs-you-reviewing")

        yield* step(() => page.click(`[data-testid="action-approvePullRequest-${runId}"]`))
        yield* step(() => page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())
        yield* step(() => page.goto(`${url}runs/${runId}`))
        yield* step(() => page.locator('[data-testid="run-state"]', { hasText: "Succeeded" }).waitFor({ timeout: 60_000 }))
        const pull = yield* pullRequestAt((yield* step(() => page.locator('[data-testid="pull-request"]').getAttribute("href"))) ?? "")
        assert.strictEqual(pull?.title, "Add deslugify")

        const change = page.locator('[data-testid="change"]')
        const files = yield* step(() => change.locator('[data-testid="patch-file"]').evaluateAll((els) => els.map((el) => el.getAttribute("data-path"))))
        assert.deepStrictEqual([...files].sort(), ["src/deslugify.js", "test/deslugify.test.js"])
        const file = change.locator('[data-testid="patch-file"][data-path="src/deslugify.js"]')
        const added = yield* step(() => file.locator('[data-testid="patch-add"] code').allInnerTexts())
        assert.include(added, `+${ADDED_LINE}`)
        assert.strictEqual(yield* step(() => file.locator('[data-testid="patch-del"]').count()), 0)
        assert.include(yield* step(() => change.locator('[data-testid="patch-files"]').innerText()), "+5 −0 src/deslugify.js (added)")

        // Each file folds, and the raw patch downloads as a file.
        yield* step(() => file.locator("summary").click())
        assert.isFalse(yield* step(() => file.locator('[data-testid="patch-add"] code').first().isVisible()))
        const download = yield* step(() => Promise.all([page.waitForEvent("download"), page.click('[data-testid="patch-download"]')]))
        const raw = yield* step(async () => {
          const path = await download[0].path()
          const { readFileSync } = await import("node:fs")
          return readFileSync(path, "utf8")
        })
        assert.include(raw, `+++ b/src/deslugify.js\n`)
        assert.include(raw, `\n+${ADDED_LINE}\n`)
        yield* noProblems(tab)
        yield* screenshot(page, "run-change")
      }), 120_000)

    it.scoped("the Run page of a succeeded Run of a Loop without the pull-request gate shows its added lines", () =>
      Effect.gen(function* () {
        const { browser, openIssue, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        yield* step(() => page.goto(url))
        const issue = yield* openIssue("Add deslugify", 'deslugify("release-notes") gives "Release notes"', FLAKY_LABEL)
        // The flaky Loop's first Attempt fails; the retried one pushes and opens its pull request, no gate between.
        const card = page.locator('[data-testid="failed-run"]', { hasText: itemText(issue.number) })
        yield* step(() => card.waitFor({ timeout: 60_000 }))
        yield* step(() => Promise.all([page.waitForURL(/\/runs\/[0-9a-f]{32}$/), card.locator("header a").click()]))
        assert.strictEqual(yield* step(() => page.locator('[data-testid="patch-file"]').count()), 0)
        yield* step(() => page.click('[data-testid="action-retry"]'))
        yield* step(() => page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())
        yield* step(() => page.locator('[data-testid="run-state"]', { hasText: "Succeeded" }).waitFor({ timeout: 60_000 }))
        yield* step(() => page.reload())

        assert.strictEqual(yield* step(() => page.locator('[data-testid="change"] h2').innerText()), "Change of Attempt 2")
        const file = page.locator('[data-testid="change"] [data-testid="patch-file"][data-path="src/deslugify.js"]')
        assert.strictEqual(yield* step(() => file.getAttribute("data-status")), "added")
        assert.include(yield* step(() => file.locator('[data-testid="patch-add"] code').allInnerTexts()), `+${ADDED_LINE}`)
        const raw = yield* step(() => page.request.get(`${page.url()}/patch`).then((r) => r.text()))
        assert.include(raw, `\n+${ADDED_LINE}\n`)
        yield* noProblems(tab)
      }), 120_000)

    it.scoped("a card dragged to another column swaps the labels on GitHub, then shows its Run's state, Loop and pull request", () =>
      Effect.gen(function* () {
        const { browser, labelsOf, openIssue, polledOntoBoard, pullRequestAt, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        const dragged = yield* openIssue("slugify keeps punctuation", "Hello, World! gives hello,-world!", COLUMNS.ideas.label)
        const keyed = yield* openIssue("Slugs of titles in capitals", "Should SHOUTING stay?", COLUMNS.ideas.label)
        yield* polledOntoBoard(dragged.number)
        yield* polledOntoBoard(keyed.number)
        yield* step(() => page.goto(`${url}board`))
        yield* markDocument(page)
        const cardIn = (column: string, number: number) =>
          page.locator(`[data-testid="column"][data-column="${column}"] [data-testid="card"][data-number="${number}"]`)
        const ready = page.locator(`[data-testid="column"][data-column="${COLUMNS.ready.name}"]`)

        yield* step(() => cardIn(COLUMNS.ideas.name, dragged.number).dragTo(ready))
        yield* step(() => cardIn(COLUMNS.ready.name, dragged.number).waitFor())
        assert.deepStrictEqual(yield* labelsOf(dragged.number), [COLUMNS.ready.label], "the drop swapped the column labels on GitHub")

        // The keyboard does the same: Alt+→ on a focused card.
        yield* step(() => cardIn(COLUMNS.ideas.name, keyed.number).focus())
        yield* step(() => page.keyboard.press("Alt+ArrowRight"))
        yield* step(() => cardIn(COLUMNS.ready.name, keyed.number).waitFor())
        assert.deepStrictEqual(yield* labelsOf(keyed.number), [COLUMNS.ready.label], "Alt+→ swapped the column labels on GitHub")

        const card = cardIn(COLUMNS.ready.name, dragged.number)
        const badge = card.locator('[data-testid="card-state"]')
        yield* step(() => badge.filter({ hasText: /^Waiting$/ }).waitFor({ timeout: 30_000 }))
        assert.strictEqual(yield* step(() => card.locator('[data-testid="card-loop"]').innerText()), "fix-bugs")
        yield* stillSameDocument(page)
        const runId = (yield* step(() => card.locator('[data-testid="card-run"]').getAttribute("data-run-id"))) ?? ""

        const needsYou = yield* scopedPage(browser)
        yield* step(() => needsYou.page.goto(url))
        yield* step(() => needsYou.page.click(`[data-testid="approve-${runId}"]`))
        yield* step(() => needsYou.page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())

        yield* step(() => badge.filter({ hasText: /^Running \d+ s$/ }).waitFor({ timeout: 30_000 }))
        assert.match((yield* step(() => badge.locator("time").getAttribute("title"))) ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
        const pr = card.locator('[data-testid="card-pr"]')
        yield* step(() => pr.waitFor({ timeout: 60_000 }))
        assert.strictEqual(yield* step(() => badge.innerText()), "Succeeded")
        const pull = yield* pullRequestAt((yield* step(() => pr.getAttribute("href"))) ?? "")
        assert.strictEqual(pull?.title, "Strip punctuation in slugify")
        assert.strictEqual(yield* step(() => pr.innerText()), `PR #${pull?.number}`)
        yield* stillSameDocument(page)
        yield* noProblems(tab)
        yield* screenshot(page, "board-cards")
      }), 150_000)

    it.scoped("at 390×844 no page scrolls sideways, the title counts what needs you, and Approve on Needs you works", () =>
      Effect.gen(function* () {
        const { browser, openIssue, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        yield* step(() => page.setViewportSize({ width: 390, height: 844 }))
        yield* step(() => page.goto(url))
        yield* markDocument(page)
        const before = yield* step(() => page.title())
        const issue = yield* openIssue("slugify keeps punctuation", "Hello, World! gives hello,-world!", COLUMNS.ready.label)
        const card = page.locator('[data-testid="waiting-run"]', { hasText: itemText(issue.number) })
        yield* step(() => card.waitFor({ timeout: 30_000 }))
        const counted = (title: string) => Number(/^\((\d+)\+?\) Needs you · usine$/.exec(title)?.[1] ?? "0")
        // The script keeps the title current when the page refreshes itself (the test's tsconfig has no DOM types).
        const grown = `Number((/^\\((\\d+)\\+?\\) Needs you/.exec(document.title) ?? [])[1] ?? "0") > ${counted(before)}`
        yield* step(() => page.waitForFunction(grown))
        const runId = (yield* step(() => card.getAttribute("data-run-id"))) ?? ""

        const pages = ["", "runs", "board", "loops", "usage", "workers", `runs/${runId}`]
        const wide: Array<string> = []
        // One tab at a time: each live page holds an event stream, and Chromium opens six connections to a host.
        for (const path of pages) {
          yield* Effect.scoped(Effect.gen(function* () {
            const other = yield* scopedPage(browser)
            yield* step(() => other.page.setViewportSize({ width: 390, height: 844 }))
            yield* step(() => other.page.goto(`${url}${path}`))
            const [scroll, inner] = yield* step(() => other.page.evaluate<[number, number]>("[document.documentElement.scrollWidth, window.innerWidth]"))
            if (scroll > inner) wide.push(`/${path}: ${scroll}px wide in ${inner}px`)
            yield* screenshot(other.page, `phone-${path === "" ? "needs-you" : path.replace(/\/.*$/, "-run")}`)
            yield* noProblems(other)
          }))
        }
        assert.deepStrictEqual(wide, [], "no page scrolls sideways at 390 px")

        const approve = page.locator(`[data-testid="approve-${runId}"]`)
        const box = yield* step(() => approve.boundingBox())
        assert.isAtMost((box?.x ?? 0) + (box?.width ?? 0), 390, "Approve is within the screen")
        yield* step(() => approve.click())
        yield* step(() => page.locator('[data-testid="flash"]', { hasText: "Done." }).waitFor())
        yield* step(() => card.waitFor({ state: "detached" }))
        yield* stillSameDocument(page)
        yield* noProblems(tab)
      }), 120_000)

    it.scoped("axe finds no serious or critical violation on any page, in light and in dark mode", () =>
      Effect.gen(function* () {
        const { browser, openIssue, url } = yield* BoardWorld
        const issue = yield* openIssue("Add deslugify", 'deslugify("release-notes") gives "Release notes"', REVIEWED_LABEL)
        const reviewing = yield* Effect.scoped(Effect.gen(function* () {
          const { page } = yield* scopedPage(browser)
          yield* step(() => page.goto(url))
          const card = page.locator('[data-testid="reviewing-run"]', { hasText: itemText(issue.number) })
          yield* step(() => card.waitFor({ timeout: 60_000 }))
          return (yield* step(() => card.getAttribute("data-run-id"))) ?? ""
        }))
        const pages = ["", "runs", "board", "loops", "usage", "workers", "audit", `runs/${reviewing}`, "login"]
        const found: Array<string> = []
        for (const scheme of ["light", "dark"] as const) {
          for (const path of pages) {
            yield* Effect.scoped(Effect.gen(function* () {
              const { page } = yield* scopedPage(browser)
              yield* step(() => page.emulateMedia({ colorScheme: scheme }))
              yield* step(() => page.goto(`${url}${path}`))
              yield* screenshot(page, `${scheme}-${path === "" ? "needs-you" : path.replace(/\/[0-9a-f]+$/, "-run")}`)
              const result = yield* step(() => new AxeBuilder({ page }).analyze())
              for (const v of result.violations) {
                if (v.impact === "serious" || v.impact === "critical") {
                  found.push(`${scheme} /${path}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`)
                }
              }
            }))
          }
        }
        assert.deepStrictEqual(found, [])

        // The check itself sees: a page with an unnamed image and an unlabeled field is refused.
        const broken = yield* Effect.scoped(Effect.gen(function* () {
          const { page } = yield* scopedPage(browser)
          yield* step(() => page.setContent('<html lang="en"><title>t</title><img src="data:,"><input type="text"></html>'))
          return (yield* step(() => new AxeBuilder({ page }).analyze())).violations.map((v) => v.id)
        }))
        assert.includeMembers(broken, ["image-alt", "label"])
      }), 240_000)
  })
})
