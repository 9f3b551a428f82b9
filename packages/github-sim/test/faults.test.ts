import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { call, failure, octokitFor } from "./octokitFor"

const setup = Effect.gen(function* () {
  const sim = yield* GitHubSim
  yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
  yield* sim.control.createRepository({ owner: "acme", name: "widgets" })
  yield* sim.control.createIssue({ repo: "acme/widgets", title: "one" })
  return { sim, control: sim.control, octokit: octokitFor(sim.url, "tok-alice") }
})

const get = { owner: "acme", repo: "widgets", issue_number: 1 }

describe("faults", () => {
  it.effect("applies a fault to two matching requests, then answers normally", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.setFault({ method: "GET", path: "/repos/*/*/issues/*", status: 502, times: 2 })
      const listed = yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets" }))
      assert.strictEqual(listed.status, 200)
      assert.strictEqual((yield* failure(() => octokit.rest.issues.get(get))).status, 502)
      assert.strictEqual((yield* failure(() => octokit.rest.issues.get(get))).status, 502)
      assert.strictEqual((yield* call(() => octokit.rest.issues.get(get))).status, 200)

      yield* control.setFault({ path: "^/repos/acme/.*", status: 500 })
      assert.strictEqual((yield* failure(() => octokit.rest.issues.get(get))).status, 500)
      yield* control.clearFaults()
      assert.strictEqual((yield* call(() => octokit.rest.issues.get(get))).status, 200)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("answers 429 with Retry-After, and a secondary rate limit as 403 with GitHub's message", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.setFault({ path: "/repos/**", status: 429, retryAfter: 7, rateLimit: "primary", times: 1 })
      const limited = yield* failure(() => octokit.rest.issues.get(get))
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.response?.headers["retry-after"], "7")
      assert.strictEqual(limited.response?.headers["x-ratelimit-remaining"], "0")

      yield* control.setFault({ path: "/repos/**", status: 403, times: 1 })
      const secondary = yield* failure(() => octokit.rest.issues.get(get))
      assert.strictEqual(secondary.status, 403)
      assert.match(String(secondary.response?.data.message), /You have exceeded a secondary rate limit/)
      assert.strictEqual(secondary.response?.headers["retry-after"], "60")

      // A refusal that is no rate limit: no Retry-After, GitHub's permission message.
      yield* control.setFault({ method: "DELETE", path: "/repos/*/*/issues/*/labels/*", status: 403, rateLimit: "none", times: 1 })
      const forbidden = yield* failure(() => octokit.rest.issues.removeLabel({ ...get, name: "bug" }))
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(forbidden.response?.data.message, "Resource not accessible by integration")
      assert.isUndefined(forbidden.response?.headers["retry-after"])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("refuses with 403 and x-ratelimit-remaining 0 once the budget is spent", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.setRateLimit({ login: "alice", remaining: 1 })
      const last = yield* call(() => octokit.rest.issues.get(get))
      assert.strictEqual(last.headers["x-ratelimit-remaining"], "0")
      const refused = yield* failure(() => octokit.rest.issues.get(get))
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.response?.headers["x-ratelimit-remaining"], "0")
      assert.match(String(refused.response?.data.message), /API rate limit exceeded/)
      const overview = yield* call(() => octokit.rest.rateLimit.get())
      assert.strictEqual(overview.data.resources.core.remaining, 0)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.live("slows a route down, and a hanging route holds until the client gives up", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.setFault({ path: "/repos/acme/widgets/issues/1", delayMs: 150, times: 1 })
      const started = Date.now()
      const slow = yield* call(() => octokit.rest.issues.get(get))
      assert.strictEqual(slow.status, 200)
      assert.isAtLeast(Date.now() - started, 140)

      yield* control.setFault({ path: "/repos/acme/widgets/issues/1", hang: true, times: 1 })
      const hung = yield* failure(() => octokit.rest.issues.get({ ...get, request: { signal: AbortSignal.timeout(200) } }))
      assert.notStrictEqual(hung.status, 200)
      assert.strictEqual((yield* call(() => octokit.rest.issues.get(get))).status, 200)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.live("cuts a page's body short, keeping its status and headers", () =>
    Effect.gen(function* () {
      const { control, octokit, sim } = yield* setup
      const list = () => fetch(`${sim.url}/repos/acme/widgets/issues`, { headers: { authorization: "token tok-alice" } })
      const whole = yield* Effect.promise(async () => (await list()).text())
      yield* control.setFault({ method: "GET", path: "/repos/*/*/issues", truncate: true, times: 1 })
      const cut = yield* Effect.promise(list)
      const text = yield* Effect.promise(() => cut.text())
      assert.strictEqual(cut.status, 200)
      assert.isNotNull(cut.headers.get("etag"))
      assert.strictEqual(text, whole.slice(0, Math.floor(Buffer.byteLength(whole) / 2)))
      assert.throws(() => JSON.parse(text))
      assert.strictEqual((yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets" }))).data.length, 1)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.live("answers late after doing the work: a client that gives up still finds the change made; the log has both times", () =>
    Effect.gen(function* () {
      const { control, octokit } = yield* setup
      yield* control.setFault({ method: "POST", path: "/repos/*/*/issues", delayAfterMs: 400, times: 1 })
      const started = Date.now()
      const gaveUp = yield* failure(() =>
        octokit.rest.issues.create({ owner: "acme", repo: "widgets", title: "two", request: { signal: AbortSignal.timeout(150) } })
      )
      assert.notStrictEqual(gaveUp.status, 201)
      assert.isBelow(Date.now() - started, 390)
      const titles = (yield* call(() => octokit.rest.issues.listForRepo({ owner: "acme", repo: "widgets" }))).data.map((i) => i.title)
      assert.deepStrictEqual(titles.sort(), ["one", "two"])
      yield* Effect.sleep("400 millis")
      const post = (yield* control.requestLog()).find((entry) => entry.method === "POST")
      assert.isDefined(post)
      assert.isAtLeast(post!.receivedAtMs, started - 5, "logged with the time it arrived")
      assert.isBelow(post!.receivedAtMs, started + 150)
      assert.isAtLeast(Date.parse(post!.at), Math.floor((post!.receivedAtMs + 400) / 1000) * 1000, "and the time it was answered")
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
})
