import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { call, failure, octokitFor } from "./octokitFor"

const gitAdvertisement = (cloneUrl: string, token: string, service: "git-receive-pack" | "git-upload-pack") =>
  Effect.promise(() =>
    fetch(`${cloneUrl}/info/refs?service=${service}`, {
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` }
    }).then((r) => r.status)
  )

describe("fine-grained tokens", () => {
  it.live("narrow their account's role: a write they lack is 403 with X-Accepted-GitHub-Permissions, GET /repos still shows the role", () =>
    Effect.gen(function* () {
      const { control, url } = yield* GitHubSim
      yield* control.createUser({ login: "bot", token: "tok-bot", permission: "write" })
      const repo = yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
      const { token } = yield* control.createFineGrainedToken({ login: "bot", permissions: { pull_requests: "read", issues: "write" } })
      assert.match(token, /^github_pat_/)
      const octokit = octokitFor(url, token)

      const shown = yield* call(() => octokit.rest.repos.get({ owner: "acme", repo: "widgets" }))
      assert.strictEqual(shown.data.permissions?.push, true, "GitHub reports the account's role, not the token's limits")
      yield* call(() => octokit.rest.pulls.list({ owner: "acme", repo: "widgets" }))

      const pull = yield* failure(() => octokit.rest.pulls.create({ owner: "acme", repo: "widgets", head: "nope", base: "nope", title: "probe" }))
      assert.strictEqual(pull.status, 403)
      assert.strictEqual(pull.response?.headers["x-accepted-github-permissions"], "pull_requests=write")
      assert.strictEqual(pull.response?.data.message, "Resource not accessible by personal access token")
      const byRole = yield* failure(() => octokitFor(url, "tok-bot").rest.pulls.create({ owner: "acme", repo: "widgets", head: "nope", base: "nope", title: "probe" }))
      assert.strictEqual(byRole.status, 422, "the account's own token may: only the head is wrong")

      const label = yield* failure(() => octokit.rest.issues.createLabel({ owner: "acme", repo: "widgets", name: "probe", color: "not-a-color" }))
      assert.strictEqual(label.status, 422, "issues: write is granted")

      assert.strictEqual(yield* gitAdvertisement(repo.cloneUrl, token, "git-receive-pack"), 403, "no contents: write, no push")
      assert.strictEqual(yield* gitAdvertisement(repo.cloneUrl, token, "git-upload-pack"), 403, "no contents: read, no clone")
      const writer = yield* control.createFineGrainedToken({ login: "bot", permissions: { contents: "write" } })
      assert.strictEqual(yield* gitAdvertisement(repo.cloneUrl, writer.token, "git-receive-pack"), 200)
      const issues = yield* failure(() => octokitFor(url, writer.token).rest.issues.create({ owner: "acme", repo: "widgets", title: "x" }))
      assert.strictEqual(issues.status, 403)
      assert.strictEqual(issues.response?.headers["x-accepted-github-permissions"], "issues=write")
    }).pipe(Effect.provide(GitHubSim.layer())))
})
