import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeAttempt, makeRun, policy, recorder, REPOSITORY, setup, simLayer } from "./support/fixture"

describe("the default branch, remembered per repository (ADR 0051)", () => {
  it.scopedLive(
    "the second Run of a repository reads no repository from GitHub and still opens its pull request on main",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const repositoryReads = Effect.map(t.sim.control.requestLog(), (log) =>
          log.filter((r) => r.method === "GET" && r.path.split("?")[0] === `/repos/${REPOSITORY}`).length)
        for (const task of ["Build the widget", "Paint the widget"]) {
          // Another task, so that the agent's commit (and its sha) differs from the first Run's.
          const run = makeRun("edit", { task })
          const outcome = yield* t.executor.execute(recorder().request(run, makeAttempt(run, 1), policy()))
          assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        }
        assert.strictEqual(yield* repositoryReads, 1, "one GET /repos/acme/widgets for two Runs")
        // Each harvest looks once, by its own head branch, before it opens one: a pull request at the agent's commit
        // is never looked for (issue 31: only one usine opened from the Run's branch is the Run's).
        const lists = (yield* t.sim.control.requestLog()).filter((r) => r.method === "GET" && r.path.startsWith(`/repos/${REPOSITORY}/pulls?`))
        assert.strictEqual(lists.length, 2)
        assert.isTrue(lists.every((r) => r.path.includes("head=")))
        const pulls = yield* t.pulls
        assert.deepStrictEqual(pulls.map((p) => p.base.ref), ["main", "main"])
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})
