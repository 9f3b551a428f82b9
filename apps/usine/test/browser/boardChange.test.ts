import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { REPOSITORY } from "../support/daemonConfig"
import { BoardWorld, BoardWorldLive } from "./support/BoardWorld"
import { REVIEWED_LABEL } from "./support/browserConfig"
import { chromiumMissing } from "./support/scopedBrowser"
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
  })
})
