import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { runGit } from "@usine/github-sim/git/runGit"
import { call, failure, octokitFor } from "./octokitFor"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "github-sim-test-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const identity = ["-c", "user.name=Alice", "-c", "user.email=alice@example.com"]

const commitFile = (dir: string, file: string, content: string) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => writeFile(join(dir, file), content))
    yield* runGit(["-C", dir, "add", file])
    yield* runGit(["-C", dir, ...identity, "commit", "-q", "-m", `change ${file}`])
    return (yield* runGit(["-C", dir, "rev-parse", "HEAD"])).trim()
  })

describe("real git over smart HTTP", () => {
  it.scoped("clone, push a branch, open its pull request through @octokit/rest, and follow later pushes", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
      const seeded = yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n" } })
      const work = yield* tempDir
      const clone = join(work, "clone")
      const octokit = octokitFor(sim.url, "tok-alice")

      const repo = yield* call(() => octokit.rest.repos.get({ owner: "acme", repo: "widgets" }))
      const url = new URL(repo.data.clone_url)
      url.username = "x-access-token"
      url.password = "tok-alice"
      yield* runGit(["clone", "-q", url.toString(), clone])
      assert.strictEqual((yield* runGit(["-C", clone, "rev-parse", "HEAD"])).trim(), seeded.headSha)

      yield* runGit(["-C", clone, "checkout", "-q", "-b", "usine/feature"])
      const pushed = yield* commitFile(clone, "feature.txt", "one\n")
      yield* runGit(["-C", clone, "push", "-q", "origin", "usine/feature"])

      const created = yield* call(() =>
        octokit.rest.pulls.create({ owner: "acme", repo: "widgets", title: "Feature", head: "acme:usine/feature", base: "main", body: "Adds it" })
      )
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.data.head.ref, "usine/feature")
      assert.strictEqual(created.data.head.sha, pushed)
      assert.strictEqual(created.data.base.sha, seeded.headSha)
      assert.strictEqual(created.data.user.login, "alice")

      const duplicate = yield* failure(() =>
        octokit.rest.pulls.create({ owner: "acme", repo: "widgets", title: "Again", head: "acme:usine/feature", base: "main" })
      )
      assert.strictEqual(duplicate.status, 422)
      assert.strictEqual(duplicate.response?.data.errors[0].message, "A pull request already exists for acme:usine/feature.")
      const noBranch = yield* failure(() =>
        octokit.rest.pulls.create({ owner: "acme", repo: "widgets", title: "Ghost", head: "acme:nope", base: "main" })
      )
      assert.strictEqual(noBranch.status, 422)

      const byHead = yield* call(() => octokit.rest.pulls.list({ owner: "acme", repo: "widgets", head: "acme:usine/feature", state: "all" }))
      assert.deepStrictEqual(byHead.data.map((pull) => pull.number), [created.data.number])
      const otherHead = yield* call(() => octokit.rest.pulls.list({ owner: "acme", repo: "widgets", head: "acme:other" }))
      assert.deepStrictEqual(otherHead.data, [])

      const updated = yield* call(() =>
        octokit.rest.pulls.update({ owner: "acme", repo: "widgets", pull_number: created.data.number, title: "Feature, renamed" })
      )
      assert.strictEqual(updated.data.title, "Feature, renamed")
      const asIssue = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets" }))
      assert.strictEqual(asIssue.data[0]?.pull_request?.url, created.data.url)

      yield* sim.control.advanceTime({ ms: 10_000 })
      const second = yield* commitFile(clone, "feature.txt", "two\n")
      yield* runGit(["-C", clone, "push", "-q", "origin", "usine/feature"])
      const after = yield* call(() => octokit.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: created.data.number }))
      assert.strictEqual(after.data.head.sha, second)
      assert.notStrictEqual(after.data.updated_at, updated.data.updated_at)
      assert.strictEqual(after.data.mergeable, true)

      yield* sim.control.addReview({ repo: "acme/widgets", number: created.data.number, author: "bob", state: "CHANGES_REQUESTED", body: "nope" })
      yield* sim.control.setMergeState({ repo: "acme/widgets", number: created.data.number, mergeable: false, mergeableState: "dirty", reviewDecision: "CHANGES_REQUESTED" })
      const graph = yield* call(() =>
        octokit.graphql<{ repository: { pullRequest: Record<string, any> } }>(
          `query($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) {
             number state headRefName headRefOid baseRefName isDraft merged mergedAt mergeable reviewDecision
             reviews(last: 5) { nodes { state body author { login } } } } } }`,
          { n: created.data.number }
        )
      )
      assert.deepStrictEqual(graph.repository.pullRequest, {
        number: created.data.number,
        state: "OPEN",
        headRefName: "usine/feature",
        headRefOid: second,
        baseRefName: "main",
        isDraft: false,
        merged: false,
        mergedAt: null,
        mergeable: "CONFLICTING",
        reviewDecision: "CHANGES_REQUESTED",
        reviews: { nodes: [{ state: "CHANGES_REQUESTED", body: "nope", author: { login: "bob" } }] }
      })
      yield* sim.control.setMergeState({ repo: "acme/widgets", number: created.data.number, mergeable: true, mergeableState: "clean" })

      const merged = yield* sim.control.mergePullRequest({ repo: "acme/widgets", number: created.data.number })
      assert.strictEqual(merged.merged, true)
      yield* runGit(["-C", clone, "fetch", "-q", "origin"])
      assert.strictEqual((yield* runGit(["-C", clone, "rev-parse", "origin/main"])).trim(), second)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.scoped("refuses a push with a read-only token, and any access without a valid token", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "reader", token: "tok-reader", permission: "read" })
      yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n" } })
      const work = yield* tempDir
      const clone = join(work, "clone")
      yield* runGit(["clone", "-q", sim.authenticatedCloneUrl("acme/widgets", "tok-reader"), clone])
      yield* runGit(["-C", clone, "checkout", "-q", "-b", "sneaky"])
      yield* commitFile(clone, "x.txt", "x\n")
      const refused = yield* Effect.flip(runGit(["-C", clone, "push", "-q", "origin", "sneaky"]))
      assert.match(refused.stderr, /403/)
      const branches = yield* runGit(["ls-remote", "--heads", sim.authenticatedCloneUrl("acme/widgets", "tok-reader")])
      assert.notInclude(branches, "sneaky")

      const anonymous = yield* Effect.flip(runGit(["ls-remote", `${sim.url}/acme/widgets.git`]))
      assert.match(anonymous.stderr, /Authentication failed|could not read Username|401/)
      const wrong = yield* Effect.flip(runGit(["ls-remote", sim.authenticatedCloneUrl("acme/widgets", "tok-wrong")]))
      assert.match(wrong.stderr, /Authentication failed|401/)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
  it.scoped("a fault on git's receive-pack path refuses one push with its status; the next push goes through", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
      yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n" } })
      const clone = join(yield* tempDir, "clone")
      yield* runGit(["clone", "-q", sim.authenticatedCloneUrl("acme/widgets", "tok-alice"), clone])
      yield* runGit(["-C", clone, "checkout", "-q", "-b", "faulty"])
      const sha = yield* commitFile(clone, "f.txt", "f\n")
      yield* sim.control.setFault({ method: "POST", path: "/acme/widgets.git/git-receive-pack", status: 503, times: 1 })
      const refused = yield* Effect.flip(runGit(["-C", clone, "push", "-q", "origin", "faulty"]))
      assert.match(refused.stderr, /503/)
      const pushes = (yield* sim.control.requestLog()).filter((r) => r.method === "POST" && r.path === "/acme/widgets.git/git-receive-pack")
      assert.deepStrictEqual(pushes.map((r) => [r.status, r.login]), [[503, "alice"]])
      assert.strictEqual((yield* runGit(["-C", clone, "ls-remote", "origin", "refs/heads/faulty"])).trim(), "", "nothing was pushed")
      yield* runGit(["-C", clone, "push", "-q", "origin", "faulty"])
      assert.strictEqual((yield* runGit(["-C", clone, "ls-remote", "origin", "refs/heads/faulty"])).split("\t")[0], sha)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
})
