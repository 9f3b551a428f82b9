import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { runGit } from "@usine/github-sim/git/runGit"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { call, octokitFor } from "./octokitFor"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "github-sim-feedback-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

describe("CI and review feedback", () => {
  it.scoped("check runs, commit statuses and review threads on a pull request's head, over REST and GraphQL", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
      yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n" } })
      const clone = join(yield* tempDir, "clone")
      yield* runGit(["clone", "-q", sim.authenticatedCloneUrl("acme/widgets", "tok-alice"), clone])
      yield* runGit(["-C", clone, "checkout", "-q", "-b", "fix"])
      yield* Effect.promise(() => writeFile(join(clone, "fix.txt"), "fix"))
      yield* runGit(["-C", clone, "add", "."])
      yield* runGit(["-C", clone, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "fix"])
      yield* runGit(["-C", clone, "push", "-q", "origin", "fix"])
      const pull = yield* sim.control.createPullRequest({ repo: "acme/widgets", head: "fix", title: "Fix" })
      const run = yield* sim.control.addCheckRun({ repo: "acme/widgets", number: pull.number, name: "unit-tests", conclusion: "failure", detailsUrl: "https://ci.example/1" })
      assert.strictEqual(run.sha, pull.head.sha)
      yield* sim.control.addCommitStatus({ repo: "acme/widgets", sha: pull.head.sha, context: "coverage", state: "pending" })
      yield* sim.control.addCommitStatus({ repo: "acme/widgets", sha: pull.head.sha, context: "coverage", state: "success" })
      yield* sim.control.addReviewThread({ repo: "acme/widgets", number: pull.number, path: "fix.txt", line: 1, body: "Say why", author: "alice" })
      yield* sim.control.addReviewThread({ repo: "acme/widgets", number: pull.number, path: "fix.txt", line: 1, body: "Done", author: "alice", resolved: true })

      const octokit = octokitFor(sim.url, "tok-alice")
      const runs = yield* call(() => octokit.rest.checks.listForRef({ owner: "acme", repo: "widgets", ref: "fix" }))
      assert.deepStrictEqual(runs.data.check_runs.map((r) => [r.name, r.status, r.conclusion]), [["unit-tests", "completed", "failure"]])
      const status = yield* call(() => octokit.rest.repos.getCombinedStatusForRef({ owner: "acme", repo: "widgets", ref: pull.head.sha }))
      assert.deepStrictEqual([status.data.state, status.data.statuses.map((s) => [s.context, s.state])], ["success", [["coverage", "success"]]])
      const comments = yield* call(() => octokit.rest.pulls.listReviewComments({ owner: "acme", repo: "widgets", pull_number: pull.number }))
      assert.deepStrictEqual(comments.data.map((c) => [c.path, c.body]), [["fix.txt", "Say why"], ["fix.txt", "Done"]])

      const graph = yield* call(() =>
        octokit.graphql<any>(`query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
          commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 10) { nodes {
            __typename ... on CheckRun { name status conclusion detailsUrl } ... on StatusContext { context state } } } } } } }
          reviewThreads(first: 10) { nodes { isResolved path line comments(first: 1) { nodes { body author { login } } } } } } } }`, { n: pull.number })
      )
      const pr = graph.repository.pullRequest
      assert.strictEqual(pr.commits.nodes[0].commit.statusCheckRollup.state, "FAILURE")
      assert.deepStrictEqual(pr.commits.nodes[0].commit.statusCheckRollup.contexts.nodes, [
        { __typename: "CheckRun", name: "unit-tests", status: "COMPLETED", conclusion: "FAILURE", detailsUrl: "https://ci.example/1" },
        { __typename: "StatusContext", context: "coverage", state: "SUCCESS" }
      ])
      assert.deepStrictEqual(pr.reviewThreads.nodes.map((t: any) => [t.isResolved, t.path, t.line, t.comments.nodes[0].body]), [
        [false, "fix.txt", 1, "Say why"],
        [true, "fix.txt", 1, "Done"]
      ])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
})
