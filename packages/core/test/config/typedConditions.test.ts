import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { conditionProblems } from "@usine/core/config/conditionProblems"
import { loopContextType } from "@usine/core/config/LoopContextType"
import { parseConfig } from "@usine/core/config/parseConfig"

const config = (condition: string, on = "issues") => `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: ${on}
${on === "schedule" ? '    cron: "0 3 * * *"\n' : ""}    if: '${condition}'
    prompt: "Fix it"
    agent: codex
`

const problems = (condition: string, on: "issues" | "pull_requests" | "schedule" = "issues") =>
  conditionProblems(condition, loopContextType(on))

describe("typed conditions", () => {
  it.effect("usine check refuses item.state == \"OPEN\" with the values state holds, at the Loop's if: and its line", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(parseConfig(config('"ready-for-agent" in item.labels && item.state == "OPEN"'), { env: {} }))
      assert.strictEqual(error.problems.length, 1)
      const [problem] = error.problems
      assert.strictEqual(problem?.path, "loops[0].if")
      assert.strictEqual(problem?.line, 8)
      assert.strictEqual(problem?.message, '`item.state == "OPEN"` can never hold: item.state is one of open, closed')
      assert.include(error.message, "usine.yaml:8:")
    })
  )

  it("admits only what the field can hold, per trigger", () => {
    assert.deepStrictEqual(problems('item.state == "open"'), [])
    assert.deepStrictEqual(problems('item.state == "merged"', "pull_requests"), [])
    assert.deepStrictEqual(problems('item.state == "merged"'), [
      '`item.state == "merged"` can never hold: item.state is one of open, closed'
    ])
    assert.deepStrictEqual(problems('item.kind == "pull_request"'), [
      '`item.kind == "pull_request"` can never hold: item.kind is one of issue'
    ])
    assert.deepStrictEqual(problems('"approved" != item.reviewDecision', "pull_requests"), [
      '`"approved" != item.reviewDecision` can never hold: item.reviewDecision is one of APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED, ""'
    ])
    assert.deepStrictEqual(problems('item.reviewDecision in ["APPROVED", "LGTM"]', "pull_requests"), [
      '`item.reviewDecision in ["APPROVED", "LGTM"]` can never hold: item.reviewDecision is one of APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED, ""'
    ])
    assert.deepStrictEqual(problems('item.kind == "tick"', "schedule"), [])
  })

  it("follows a macro's variable into the list it ranges over", () => {
    assert.deepStrictEqual(problems('item.reviews.exists(r, r.state == "APPROVED")', "pull_requests"), [])
    assert.deepStrictEqual(problems('item.reviews.exists(r, r.state == "approved")', "pull_requests"), [
      '`r.state == "approved"` can never hold: item.reviews[].state is one of APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING'
    ])
    assert.deepStrictEqual(problems('item.comments.all(c, c.authorAssociation != "owner")'), [
      '`c.authorAssociation != "owner"` can never hold: item.comments[].authorAssociation is one of COLLABORATOR, CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, MEMBER, NONE, OWNER'
    ])
  })

  it("free-text fields take any literal, and lists of them too", () => {
    assert.deepStrictEqual(problems('"ready-for-agent" in item.labels && item.title == "OPEN" && item.author != "x"'), [])
    assert.deepStrictEqual(problems('item.tick.tz == "Europe/Paris"', "schedule"), [])
  })

  it("refuses a field the context does not have, and operands of the wrong type", () => {
    assert.match(problems("item.stat == 1")[0] ?? "", /^invalid CEL expression: No such key: stat/)
    assert.match(problems('item.number == "3"')[0] ?? "", /no such overload: int == string/)
    assert.match(problems("item.tick.cron != \"\"")[0] ?? "", /No such key: tick/)
    assert.match(problems("item.labels.size() > 0 && item.isDraft", "schedule")[0] ?? "", /No such key: labels/)
  })

  it.effect("reports it through usine check like any other problem", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(parseConfig(config('item.tick.cron == "x"', "schedule").replace("cron ==", "crons =="), { env: {} }))
      assert.strictEqual(error.problems[0]?.path, "loops[0].if")
      assert.match(error.problems[0]?.message ?? "", /No such key: crons/)
    })
  )
})
