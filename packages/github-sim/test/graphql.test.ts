import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { validateQuery } from "./support/validateQuery"
import { call, failure, octokitFor } from "./octokitFor"

const SNAPSHOT = `
  query Snapshot($owner: String!, $name: String!, $number: Int!) {
    rateLimit { cost remaining resetAt }
    viewer { login }
    repository(owner: $owner, name: $name) {
      nameWithOwner
      issueOrPullRequest(number: $number) {
        __typename
        ... on Issue {
          number title body state url createdAt updatedAt closedAt
          author { login }
          authorAssociation
          labels(first: 20) { nodes { name } }
          comments(last: 2) { totalCount nodes { body author { login } authorAssociation createdAt } }
          assignees(first: 5) { nodes { login } }
        }
      }
    }
  }`

const setup = Effect.gen(function* () {
  const sim = yield* GitHubSim
  yield* sim.control.createUser({ login: "alice", token: "tok-alice" })
  yield* sim.control.createRepository({ owner: "acme", name: "widgets" })
  yield* sim.control.createIssue({ repo: "acme/widgets", title: "Fix it", body: "details", labels: ["bug", "usine:ready"], author: "bob" })
  for (const body of ["first", "second", "third"]) {
    yield* sim.control.addComment({ repo: "acme/widgets", number: 1, body, author: "alice" })
  }
  return { sim, octokit: octokitFor(sim.url, "tok-alice") }
})

describe("GraphQL", () => {
  it.effect("answers a valid query with the issue's labels, comments and rate limit", () =>
    Effect.gen(function* () {
      const { octokit } = yield* setup
      const result = yield* call(() =>
        octokit.graphql<{ rateLimit: { cost: number; remaining: number }; viewer: { login: string }; repository: { issueOrPullRequest: any } }>(
          SNAPSHOT,
          { owner: "acme", name: "widgets", number: 1 }
        )
      )
      assert.strictEqual(result.viewer.login, "alice")
      assert.strictEqual(result.rateLimit.cost, 1)
      assert.strictEqual(result.rateLimit.remaining, 4999)
      const issue = result.repository.issueOrPullRequest
      assert.strictEqual(issue.__typename, "Issue")
      assert.strictEqual(issue.state, "OPEN")
      assert.strictEqual(issue.author.login, "bob")
      assert.strictEqual(issue.authorAssociation, "NONE")
      assert.deepStrictEqual(issue.labels.nodes.map((l: { name: string }) => l.name), ["bug", "usine:ready"])
      assert.strictEqual(issue.comments.totalCount, 3)
      assert.deepStrictEqual(issue.comments.nodes.map((c: { body: string }) => c.body), ["second", "third"])
      assert.strictEqual(issue.comments.nodes[0].authorAssociation, "COLLABORATOR")
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("rejects a query real GitHub would reject, with validation errors and no charge", () =>
    Effect.gen(function* () {
      const { sim, octokit } = yield* setup
      const invalid = `query { repository(owner: "acme", name: "widgets") { issue(number: 1) { notAField } } }`
      const rejected = yield* failure(() => octokit.graphql(invalid))
      const errors = (rejected as unknown as { errors: ReadonlyArray<{ message: string }> }).errors
      assert.deepStrictEqual(errors.map((e) => e.message), ['Cannot query field "notAField" on type "Issue".'])
      assert.deepStrictEqual(validateQuery(invalid), ['Cannot query field "notAField" on type "Issue".'])
      assert.deepStrictEqual(validateQuery(SNAPSHOT), [])
      assert.strictEqual(validateQuery("query {").length, 1)
      const log = yield* sim.control.requestLog()
      assert.deepStrictEqual(log.map((entry) => [entry.path, entry.counted]), [["/graphql", false]])
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("enforces GitHub's pagination bounds and names what it does not emulate", () =>
    Effect.gen(function* () {
      const { octokit } = yield* setup
      const unbounded = yield* failure(() => octokit.graphql(`{ repository(owner: "acme", name: "widgets") { labels { totalCount } } }`))
      assert.match(String((unbounded as unknown as Error).message), /must provide a `first` or `last` value/)
      const missing = yield* failure(() => octokit.graphql(`{ repository(owner: "acme", name: "nope") { id } }`))
      const notFound = (missing as unknown as { errors: ReadonlyArray<{ type: string }> }).errors
      assert.strictEqual(notFound[0]?.type, "NOT_FOUND")
      const unknownField = yield* failure(() => octokit.graphql(`{ repository(owner: "acme", name: "widgets") { stargazerCount } }`))
      assert.match(String((unknownField as unknown as Error).message), /does not emulate Repository.stargazerCount/)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("reads the default branch from git, and refuses a pull request without commits", () =>
    Effect.gen(function* () {
      const { sim, octokit } = yield* setup
      yield* sim.control.createRepository({ owner: "acme", name: "seeded", files: { "a.txt": "a\n" } })
      const noCommits = yield* Effect.flip(sim.control.createPullRequest({ repo: "acme/seeded", title: "Nothing", head: "main", base: "main" }))
      assert.strictEqual(noCommits._tag, "Unprocessable")
      const pull = yield* failure(() =>
        octokit.graphql(`{ repository(owner: "acme", name: "seeded") { pullRequest(number: 1) { headRefName } } }`)
      )
      assert.match(String((pull as unknown as Error).message), /Could not resolve to a PullRequest with the number of 1/)
      const data = yield* call(() =>
        octokit.graphql<{ repository: { defaultBranchRef: { name: string; target: { oid: string } } } }>(
          `{ repository(owner: "acme", name: "seeded") { defaultBranchRef { name target { oid } } } }`
        )
      )
      assert.strictEqual(data.repository.defaultBranchRef.name, "main")
      assert.match(data.repository.defaultBranchRef.target.oid, /^[0-9a-f]{40}$/)
    }).pipe(Effect.provide(GitHubSim.layer()))
  )

  it.effect("serves the last body edit as lastEditedAt and editor, whoever made it and however (REST or control)", () =>
    Effect.gen(function* () {
      const { sim, octokit } = yield* setup
      const EDIT = `{ repository(owner: "acme", name: "widgets") { issue(number: 1) { body lastEditedAt editor { login } } } }`
      type Edit = { repository: { issue: { body: string; lastEditedAt: string | null; editor: { login: string } | null } } }
      const read = Effect.map(call(() => octokit.graphql<Edit>(EDIT)), (data) => data.repository.issue)
      assert.deepStrictEqual(yield* read, { body: "details", lastEditedAt: null, editor: null }, "opening is no edit")
      yield* sim.control.createUser({ login: "bob", token: "tok-bob", permission: "read" })
      yield* sim.control.setTime({ at: "2026-12-01T20:50:00.400Z" })
      yield* call(() => octokitFor(sim.url, "tok-bob").request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", { owner: "acme", repo: "widgets", issue_number: 1, body: "bob's edit" }))
      assert.deepStrictEqual(yield* read, { body: "bob's edit", lastEditedAt: "2026-12-01T20:50:00Z", editor: { login: "bob" } })
      yield* sim.control.advanceTime({ ms: 61_000 })
      yield* sim.control.updateIssue({ repo: "acme/widgets", number: 1, title: "Renamed", actor: "alice" })
      assert.strictEqual((yield* read).lastEditedAt, "2026-12-01T20:50:00Z", "a title change is a renamed event, not a body edit")
      yield* sim.control.updateIssue({ repo: "acme/widgets", number: 1, body: "alice's edit", actor: "alice" })
      assert.deepStrictEqual(yield* read, { body: "alice's edit", lastEditedAt: "2026-12-01T20:51:01Z", editor: { login: "alice" } })
    }).pipe(Effect.provide(GitHubSim.layer()))
  )
})
