import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { call, failure, octokitFor } from "./octokitFor"

const setup = Effect.gen(function* () {
  const sim = yield* GitHubSim
  const { control } = sim
  yield* control.setTime({ at: "2026-03-01T00:00:00Z" })
  const alice = yield* control.createUser({ login: "alice", token: "tok-alice" })
  yield* control.createRepository({ owner: "acme", name: "widgets" })
  return { sim, control, octokit: octokitFor(sim.url, alice.token) }
})

describe("REST", () => {
  it.effect("paginates 250 issues with Link headers and per_page", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.createRepository({ owner: "acme", name: "many" })
      for (let i = 1; i <= 250; i++) yield* control.createIssue({ repo: "acme/many", title: `issue ${i}` })

      const first = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "many", per_page: 100 }))
      assert.strictEqual(first.data.length, 100)
      const link = first.headers.link ?? ""
      assert.match(link, /[?&]page=2[^>]*>; rel="next"/)
      assert.match(link, /[?&]page=3[^>]*>; rel="last"/)
      assert.match(link, /^<http:\/\/127\.0\.0\.1:\d+\/repos\/acme\/many\/issues\?/)

      const middle = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "many", per_page: 100, page: 2 }))
      assert.match(middle.headers.link ?? "", /rel="prev".*rel="next".*rel="last".*rel="first"/)

      const all = yield* call(() => octokit.paginate(octokit.rest.issues.listForRepo, { owner: "acme", repo: "many", per_page: 100 }))
      assert.strictEqual(all.length, 250)
      assert.deepStrictEqual(new Set(all.map((issue) => issue.number)).size, 250)
      // default order: created, newest first
      assert.strictEqual(all[0]?.number, 250)

      const defaults = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "many" }))
      assert.strictEqual(defaults.data.length, 30)
      const capped = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "many", per_page: 500 }))
      assert.strictEqual(capped.data.length, 100)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("filters with since and orders with sort/direction on updated_at", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.createRepository({ owner: "acme", name: "timed" })
      yield* control.setTime({ at: "2026-04-01T10:00:00Z" })
      yield* control.createIssue({ repo: "acme/timed", title: "one" })
      yield* control.advanceTime({ ms: 60_000 })
      yield* control.createIssue({ repo: "acme/timed", title: "two" })
      yield* control.advanceTime({ ms: 60_000 })
      yield* control.createIssue({ repo: "acme/timed", title: "three", state: "closed" })
      yield* control.advanceTime({ ms: 60_000 })
      // a write to #1 makes it the most recently updated
      yield* control.addComment({ repo: "acme/timed", number: 1, body: "bump", author: "bob" })

      const list = (params: Record<string, string>) =>
        call(() => octokit.request("GET /repos/{owner}/{repo}/issues", { owner: "acme", repo: "timed", ...params }))
      const asc = yield* list({ state: "all", sort: "updated", direction: "asc" })
      assert.deepStrictEqual(asc.data.map((i) => i.number), [2, 3, 1])
      assert.strictEqual(asc.data[2]?.updated_at, "2026-04-01T10:03:00Z")
      const since = yield* list({ state: "all", sort: "updated", direction: "asc", since: "2026-04-01T10:02:00Z" })
      assert.deepStrictEqual(since.data.map((i) => i.number), [3, 1])
      const open = yield* list({ sort: "created", direction: "asc" })
      assert.deepStrictEqual(open.data.map((i) => i.number), [1, 2])
      const closed = yield* list({ state: "closed" })
      assert.deepStrictEqual(closed.data.map((i) => i.number), [3])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("answers a repeated GET with 304 from If-None-Match, without charging the rate limit", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.createIssue({ repo: "acme/widgets", title: "cached" })
      const first = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets" }))
      const etag = first.headers.etag ?? ""
      assert.match(etag, /^"[0-9a-f]{64}"$/)
      const remaining = Number(first.headers["x-ratelimit-remaining"])

      const again = yield* failure(() =>
        octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets", headers: { "if-none-match": etag } })
      )
      assert.strictEqual(again.status, 304)
      assert.strictEqual(Number(again.response?.headers["x-ratelimit-remaining"]), remaining)

      yield* control.createIssue({ repo: "acme/widgets", title: "change" })
      const changed = yield* call(() =>
        octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets", headers: { "if-none-match": etag } })
      )
      assert.notStrictEqual(changed.headers.etag, etag)
      assert.strictEqual(Number(changed.headers["x-ratelimit-remaining"]), remaining - 1)

      const log = (yield* control.requestLog()).filter((entry) => entry.path.startsWith("/repos/acme/widgets/issues"))
      assert.deepStrictEqual(log.slice(-3).map((entry) => [entry.status, entry.conditional, entry.counted]), [
        [200, false, true],
        [304, true, false],
        [200, true, true]
      ])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("records label writes as timeline events with the token's user as actor", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      const issue = yield* control.createIssue({ repo: "acme/widgets", title: "label me" })
      const number = issue.number
      yield* call(() => octokit.rest.issues.addLabels({ owner: "acme", repo: "widgets", issue_number: number, labels: ["ready-for-agent"] }))
      yield* call(() => octokit.rest.issues.setLabels({ owner: "acme", repo: "widgets", issue_number: number, labels: ["bug"] }))
      const removed = yield* call(() => octokit.rest.issues.removeLabel({ owner: "acme", repo: "widgets", issue_number: number, name: "bug" }))
      assert.deepStrictEqual(removed.data, [])
      const missing = yield* failure(() => octokit.rest.issues.removeLabel({ owner: "acme", repo: "widgets", issue_number: number, name: "bug" }))
      assert.strictEqual(missing.status, 404)

      const timeline = yield* call(() => octokit.rest.issues.listEventsForTimeline({ owner: "acme", repo: "widgets", issue_number: number }))
      const events = timeline.data.map((event) => {
        const e = event as { event?: string; actor?: { login: string }; label?: { name: string } }
        return [e.event, e.actor?.login, e.label?.name]
      })
      assert.deepStrictEqual(events, [
        ["labeled", "alice", "ready-for-agent"],
        ["unlabeled", "alice", "ready-for-agent"],
        ["labeled", "alice", "bug"],
        ["unlabeled", "alice", "bug"]
      ])
      const catalog = yield* call(() => octokit.paginate(octokit.rest.issues.listLabelsForRepo, { owner: "acme", repo: "widgets" }))
      assert.ok(catalog.some((label) => label.name === "ready-for-agent"))
      assert.ok(catalog.some((label) => label.name === "good first issue" && label.default))
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("serves repository metadata, the catalog, comments, issue writes and permissions", () =>
    Effect.gen(function* () {
      const { sim, control, octokit } = yield* setup
      const repo = yield* call(() => octokit.rest.repos.get({ owner: "acme", repo: "widgets" }))
      assert.strictEqual(repo.data.clone_url, `${sim.url}/acme/widgets.git`)
      assert.strictEqual(repo.data.default_branch, "main")
      assert.deepStrictEqual(repo.data.permissions, { admin: false, maintain: false, push: true, triage: true, pull: true })

      const created = yield* call(() => octokit.rest.issues.createLabel({ owner: "acme", repo: "widgets", name: "usine:ready", color: "0e8a16" }))
      assert.strictEqual(created.status, 201)
      const duplicate = yield* failure(() => octokit.rest.issues.createLabel({ owner: "acme", repo: "widgets", name: "USINE:READY" }))
      assert.strictEqual(duplicate.status, 422)

      const issue = yield* call(() => octokit.rest.issues.create({ owner: "acme", repo: "widgets", title: "from api", labels: ["usine:ready"] }))
      assert.strictEqual(issue.data.user?.login, "alice")
      assert.deepStrictEqual(issue.data.labels.map((l) => (typeof l === "string" ? l : l.name)), ["usine:ready"])
      yield* control.advanceTime({ ms: 5_000 })
      yield* call(() => octokit.rest.issues.createComment({ owner: "acme", repo: "widgets", issue_number: issue.data.number, body: "hello" }))
      const comments = yield* call(() => octokit.rest.issues.listComments({ owner: "acme", repo: "widgets", issue_number: issue.data.number }))
      assert.deepStrictEqual(comments.data.map((c) => [c.body, c.user?.login, c.author_association]), [["hello", "alice", "COLLABORATOR"]])
      const closed = yield* call(() => octokit.rest.issues.update({ owner: "acme", repo: "widgets", issue_number: issue.data.number, state: "closed" }))
      assert.strictEqual(closed.data.state, "closed")
      assert.notStrictEqual(closed.data.updated_at, issue.data.updated_at)

      yield* control.createUser({ login: "reader", token: "tok-reader", permission: "read" })
      const permission = yield* call(() => octokit.rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "widgets", username: "reader" }))
      assert.strictEqual(permission.data.permission, "read")
      const owner = yield* call(() => octokit.rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "widgets", username: "acme" }))
      assert.strictEqual(owner.data.permission, "admin")
      const readerLabels = yield* failure(() =>
        octokitFor(sim.url, "tok-reader").rest.issues.addLabels({ owner: "acme", repo: "widgets", issue_number: issue.data.number, labels: ["x"] })
      )
      assert.strictEqual(readerLabels.status, 403)

      const me = yield* call(() => octokit.rest.users.getAuthenticated())
      assert.strictEqual(me.data.login, "alice")
      const bad = yield* failure(() => octokitFor(sim.url, "not-a-token").rest.users.getAuthenticated())
      assert.strictEqual(bad.status, 401)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
})
