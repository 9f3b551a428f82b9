import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { runGit } from "@usine/github-sim/git/runGit"
import { withoutCode } from "@usine/github-sim/world/withoutCode"
import { call, octokitFor } from "./octokitFor"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "github-sim-closes-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

describe("closing keywords", () => {
  it.scoped("merging a pull request into the default branch closes the issues its body names, as GitHub does", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
      yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n" } })
      for (const title of ["one", "two", "three", "four"]) yield* sim.control.createIssue({ repo: "acme/widgets", title })
      const clone = join(yield* tempDir, "clone")
      yield* runGit(["clone", "-q", sim.authenticatedCloneUrl("acme/widgets", "tok-alice"), clone])
      const branch = (name: string) =>
        Effect.gen(function* () {
          yield* runGit(["-C", clone, "checkout", "-q", "-B", name, "origin/main"])
          yield* Effect.promise(() => writeFile(join(clone, `${name}.txt`), name))
          yield* runGit(["-C", clone, "add", "."])
          yield* runGit(["-C", clone, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", name])
          yield* runGit(["-C", clone, "push", "-q", "origin", name])
        })
      yield* branch("fix")
      const pull = yield* sim.control.createPullRequest({
        repo: "acme/widgets",
        head: "fix",
        title: "Fix",
        // Code names nothing: #4 stays open.
        body: "Work on it.\n\nCloses #1\nfixes: acme/widgets#2, resolves other/repo#3\n\n```\nCloses #4\n```\n\n`fixes #4`\n\n    resolves #4\n"
      })
      const octokit = octokitFor(sim.url, "tok-alice")
      const state = (n: number) =>
        call(() => octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: n })).pipe(
          Effect.map((r) => [r.data.state, r.data.state_reason ?? null])
        )
      assert.deepStrictEqual(yield* state(1), ["open", null])
      yield* sim.control.mergePullRequest({ repo: "acme/widgets", number: pull.number, actor: "alice" })
      assert.deepStrictEqual(yield* state(1), ["closed", "completed"])
      assert.deepStrictEqual(yield* state(2), ["closed", "completed"])
      assert.deepStrictEqual(yield* state(3), ["open", null])
      assert.deepStrictEqual(yield* state(4), ["open", null])
      const events = yield* call(() => octokit.rest.issues.listEvents({ owner: "acme", repo: "widgets", issue_number: 1 }))
      assert.deepStrictEqual(events.data.map((e) => [e.event, e.actor?.login]), [["closed", "alice"]])

      // Closed without merging, nothing is closed.
      yield* branch("other")
      const closedOnly = yield* sim.control.createPullRequest({ repo: "acme/widgets", head: "other", title: "Other", body: "Closes #4" })
      yield* sim.control.closePullRequest({ repo: "acme/widgets", number: closedOnly.number })
      assert.deepStrictEqual(yield* state(4), ["open", null])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it("code spans, fenced and indented blocks are left out of what GitHub reads for keywords", () => {
    const body = "Closes #1\n````\n```\nCloses #2\n```\nfixes #3\n````\ntext `` a ` Closes #5 `` and ~~~x\n\n    resolves #6\nafter\n~~~\nfixes #7"
    const left = withoutCode(body)
    assert.include(left, "Closes #1")
    assert.include(left, "after")
    for (const n of [2, 3, 5, 6, 7]) assert.notInclude(left, `#${n}`)
  })
})
