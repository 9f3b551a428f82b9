import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { pushBranch, REPOSITORY, setup, simLayer } from "./support/fixture"

describe("PullRequests.github against the emulator", () => {
  it.scopedLive(
    "ensure opens once, then finds and updates; concurrent ensures for one head end on one pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const prs = t.pullRequests
        const sha = yield* pushBranch(t, "usine/a")
        const request = { repository: REPOSITORY, head: "usine/a", base: "main", title: "A", body: "first" }
        const opened = yield* prs.ensure(request)
        assert.isTrue(opened.created)
        const again = yield* prs.ensure(request)
        assert.deepStrictEqual(again, { ...opened, created: false })
        yield* prs.ensure({ ...request, title: "A, renamed", body: "second" })
        const read = yield* prs.get(REPOSITORY, opened.number)
        assert.deepStrictEqual([read.title, read.body, read.headRef, read.headSha, read.baseRef], ["A, renamed", "second", "usine/a", sha, "main"])
        const found = yield* prs.findOpen(REPOSITORY, { sha, head: "usine/a" })
        assert.deepStrictEqual(Option.map(found.byCommit, (p) => p.number), Option.some(opened.number))
        assert.deepStrictEqual(found.byHead && Option.map(found.byHead, (p) => p.number), Option.some(opened.number))
        const elsewhere = yield* prs.findOpen(REPOSITORY, { sha: "0".repeat(40), head: "usine/none" })
        assert.deepStrictEqual(elsewhere, { byCommit: Option.none(), byHead: Option.none() })
        assert.strictEqual(yield* prs.defaultBranch(REPOSITORY), "main")

        yield* pushBranch(t, "usine/b")
        // Two daemons race for the same head: both look, find nothing, and open; one of them hears 422.
        const other = (yield* t.daemon).pullRequests
        const raced = yield* Effect.all(
          [prs, other].map((client) => client.ensure({ ...request, head: "usine/b", title: "B" })),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(raced.map((r) => r.number)).size, 1)
        assert.strictEqual(raced.filter((r) => r.created).length, 1)
        assert.strictEqual((yield* t.pulls).length, 2)
      }).pipe(Effect.provide(simLayer)),
    60_000
  )

  it.scopedLive("the default branch is read once, and again after a pull request's base was refused", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      const reads = Effect.map(t.sim.control.requestLog(), (log) =>
        log.filter((r) => r.method === "GET" && r.path.split("?")[0] === `/repos/${REPOSITORY}`).length)
      const before = yield* reads
      assert.strictEqual(yield* t.pullRequests.defaultBranch(REPOSITORY), "main")
      assert.strictEqual(yield* t.pullRequests.defaultBranch("ACME/Widgets"), "main")
      assert.strictEqual((yield* reads) - before, 1, "the second read is remembered")
      yield* pushBranch(t, "usine/c")
      yield* t.pullRequests
        .ensure({ repository: REPOSITORY, head: "usine/c", base: "renamed-away", title: "c", body: "" })
        .pipe(Effect.flip)
      assert.strictEqual(yield* t.pullRequests.defaultBranch(REPOSITORY), "main")
      assert.strictEqual((yield* reads) - before, 2, "a refused base makes the next read go to GitHub")
      yield* t.pullRequests.forgetDefaultBranch(REPOSITORY)
      yield* t.pullRequests.defaultBranch(REPOSITORY)
      assert.strictEqual((yield* reads) - before, 3)
    }).pipe(Effect.provide(simLayer)))

  it.scopedLive("a refused call is typed and says whether a retry can help", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      const missing = yield* t.pullRequests.get(REPOSITORY, 999).pipe(Effect.flip)
      assert.strictEqual(missing._tag, "PullRequestCallFailed")
      assert.isFalse(missing.transient)
      const noBranch = yield* t.pullRequests
        .ensure({ repository: REPOSITORY, head: "nope", base: "main", title: "x", body: "" })
        .pipe(Effect.flip)
      assert.isFalse(noBranch.transient)
      assert.include(noBranch.message, "422")
    }).pipe(Effect.provide(simLayer)))
})
