import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, Option } from "effect"
import type { BoardView } from "@usine/board/BoardViews/boardView"
import { REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { BoardWorld } from "./support/BoardWorld"
import { chromiumMissing } from "./support/scopedBrowser"
import { markDocument, stillSameDocument } from "./support/sameDocument"
import { noProblems, scopedPage } from "./support/scopedPage"
import { SHOWCASE_LABELS } from "./support/showcaseConfig"
import { ShowcaseWorldLive } from "./support/ShowcaseWorld"
import { step } from "./support/step"

const suite = chromiumMissing === undefined ? "the Board's cards show CI in Chromium against usine up" : `SKIPPED: ${chromiumMissing}`

describe.skipIf(chromiumMissing !== undefined && process.env["CI"] !== "true")(suite, () => {
  layer(ShowcaseWorldLive, { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("a card shows its Run's pull request with the CI state GitHub reports for it, in words, and follows it live", () =>
      Effect.gen(function* () {
        const { browser, sim, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        const issue = yield* Effect.promise(() =>
          sim.control.createIssue({ repo: REPOSITORY, title: "Add deslugify", body: "deslugify(slug)", labels: [SHOWCASE_LABELS.ready, SHOWCASE_LABELS.enhancement] }))
        const pullNumber = yield* eventually(
          "the card's Run opens its pull request",
          Effect.map(board<BoardView>(url, "/api/board"), (view) =>
            Option.fromNullable(view.columns.flatMap((c) => c.cards).find((c) => c.number === issue.number)?.latestRun?.pullRequest?.number)),
          120
        ).pipe(Effect.orDie)

        yield* step(() => page.goto(`${url}board`))
        yield* markDocument(page)
        const card = page.locator(`[data-testid="card"][data-number="${issue.number}"]`)
        const pr = card.locator('[data-testid="card-pr"]')
        assert.strictEqual(yield* step(() => pr.innerText()), `PR #${pullNumber}`)
        const ci = card.locator('[data-testid="card-ci"]')

        // CI starts on the pull request's head: lint passes, the coverage status is still pending.
        yield* Effect.promise(() => sim.control.addCheckRun({ repo: REPOSITORY, number: pullNumber, name: "lint", conclusion: "success" }))
        yield* Effect.promise(() => sim.control.addCommitStatus({ repo: REPOSITORY, number: pullNumber, context: "coverage", state: "pending" }))
        yield* step(() => ci.filter({ hasText: /^CI pending 1\/2$/ }).waitFor({ timeout: 30_000 }))
        const counts = () => Promise.all(["data-ci", "data-passed", "data-failed", "data-pending"].map((name) => ci.getAttribute(name)))
        assert.deepStrictEqual(yield* step(counts), ["pending", "1", "0", "1"])

        // Then the unit tests fail and coverage completes: the same open page says so, without a reload.
        yield* Effect.promise(() => sim.control.addCheckRun({ repo: REPOSITORY, number: pullNumber, name: "unit-tests", conclusion: "failure" }))
        yield* Effect.promise(() => sim.control.addCommitStatus({ repo: REPOSITORY, number: pullNumber, context: "coverage", state: "success" }))
        yield* step(() => ci.filter({ hasText: /^CI failing 1\/3$/ }).waitFor({ timeout: 30_000 }))
        assert.deepStrictEqual(yield* step(counts), ["failing", "2", "1", "0"])
        assert.strictEqual(yield* step(() => ci.getAttribute("title")), "2 passing, 1 failing, 0 pending of 3 checks")
        assert.strictEqual(yield* step(() => pr.innerText()), `PR #${pullNumber}`, "next to its pull request's link")
        yield* stillSameDocument(page)
        yield* noProblems(tab)
      }), 180_000)
  })
})
