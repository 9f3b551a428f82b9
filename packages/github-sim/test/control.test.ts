import { existsSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { startSim } from "@usine/github-sim/startSim"
import { call, failure, octokitFor } from "./octokitFor"

const post = (url: string, method: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/_sim/${method}`, { method: "POST", body: JSON.stringify(body) })
    return { status: response.status, body: (await response.json()) as any }
  })

describe("control", () => {
  it.effect("drives the emulator over HTTP under /_sim/ (the demo's and the daemon-as-process tests' path)", () =>
    Effect.acquireUseRelease(
      Effect.promise(() => startSim()),
      (sim) =>
        Effect.gen(function* () {
          const user = yield* post(sim.url, "createUser", { login: "alice" })
          assert.strictEqual(user.status, 200)
          assert.match(user.body.token, /^ghp_sim[0-9a-f]{32}$/)
          yield* post(sim.url, "createRepository", { owner: "acme", name: "widgets" })
          const issue = yield* post(sim.url, "createIssue", { repo: "acme/widgets", title: "From control", labels: ["bug"] })
          assert.strictEqual(issue.body.number, 1)
          const labeled = yield* post(sim.url, "addLabels", { repo: "acme/widgets", number: 1, labels: ["ready-for-agent"], actor: "maintainer" })
          assert.strictEqual(labeled.status, 200)
          const invalid = yield* post(sim.url, "createIssue", { repo: "acme/widgets" })
          assert.strictEqual(invalid.status, 400)
          const unknownRepo = yield* post(sim.url, "createIssue", { repo: "acme/nope", title: "x" })
          assert.strictEqual(unknownRepo.status, 404)
          const fault = yield* post(sim.url, "setFault", { path: "/user", status: 500, times: 1 })
          assert.deepStrictEqual(fault.body, { id: 1 })

          const octokit = octokitFor(sim.url, user.body.token)
          assert.strictEqual((yield* failure(() => octokit.rest.users.getAuthenticated())).status, 500)
          const events = yield* call(() => octokit.rest.issues.listEvents({ owner: "acme", repo: "widgets", issue_number: 1 }))
          assert.deepStrictEqual(events.data.map((e) => [e.event, e.actor?.login]), [["labeled", "acme"], ["labeled", "maintainer"]])

          const log = yield* Effect.promise(() => fetch(`${sim.url}/_sim/requestLog`).then((r) => r.json() as Promise<any[]>))
          assert.deepStrictEqual(log.map((entry) => [entry.method, entry.path, entry.status]), [
            ["GET", "/user", 500],
            ["GET", "/repos/acme/widgets/issues/1/events", 200]
          ])
          const viaPromise = yield* Effect.promise(() => sim.control.requestLog())
          assert.strictEqual(viaPromise.length, 2)
          const rejected = yield* Effect.promise(() => sim.control.createIssue({ repo: "acme/nope", title: "x" }).then(() => "resolved", (e: { _tag: string }) => e._tag))
          assert.strictEqual(rejected, "NotFound")
        }),
      (sim) => Effect.promise(() => sim.close())
    )
  )

  it.effect("hides repositories from accounts without access, as GitHub does for private repositories", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      yield* sim.control.createUser({ login: "outsider", token: "tok-out", permission: "none" })
      yield* sim.control.createUser({ login: "member", token: "tok-member", permission: "none", repositories: { "acme/secret": "write" } })
      yield* sim.control.createRepository({ owner: "acme", name: "secret", private: true })
      const hidden = yield* failure(() => octokitFor(sim.url, "tok-out").rest.repos.get({ owner: "acme", repo: "secret" }))
      assert.strictEqual(hidden.status, 404)
      const seen = yield* call(() => octokitFor(sim.url, "tok-member").rest.repos.get({ owner: "acme", repo: "secret" }))
      assert.strictEqual(seen.data.private, true)
      assert.strictEqual(seen.data.permissions?.push, true)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("closing the layer's scope stops the server and removes its temporary data directory", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(GitHubSim.layer(), scope)
      const sim = Context.get(context, GitHubSim)
      yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "a.txt": "a\n" } })
      assert.isTrue(existsSync(sim.dataDir))
      const before = yield* Effect.promise(() => fetch(`${sim.url}/rate_limit`).then((r) => r.status))
      assert.strictEqual(before, 401)
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(sim.dataDir))
      const after = yield* Effect.promise(() => fetch(`${sim.url}/rate_limit`).then(() => "answered", () => "refused"))
      assert.strictEqual(after, "refused")
    })
  )
})
