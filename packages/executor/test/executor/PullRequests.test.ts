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
        assert.deepStrictEqual(Option.map(yield* prs.findByCommit(REPOSITORY, sha), (p) => p.number), Option.some(opened.number))
        assert.deepStrictEqual(yield* prs.findByCommit(REPOSITORY, "0".repeat(40)), Option.none())
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
