import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"

const withLoop = (keys: string) => `
repositories: [acme/widgets]
agents:
  pi: {harness: pi}
  reviewer: {harness: command, command: ./judge.sh}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: pi
${keys}
`

const problemsOf = (text: string) =>
  parseConfig(text, { env: {} }).pipe(
    Effect.flip,
    Effect.map((invalid) => invalid.problems.map((p) => `${p.path}: ${p.message}`))
  )

const loopOf = (keys: string) => Effect.map(parseConfig(withLoop(keys), { env: {} }), (config) => config.loops[0])

describe("approval and judge", () => {
  it.effect("the string form is the start gate; the map sets both gates, each defaulting as before", () =>
    Effect.gen(function* () {
      const plain = yield* loopOf("")
      assert.deepStrictEqual([plain?.approval, plain?.pullRequestApproval, plain?.judge], ["required", "none", undefined])
      const none = yield* loopOf("    approval: none")
      assert.deepStrictEqual([none?.approval, none?.pullRequestApproval], ["none", "none"])
      const both = yield* loopOf("    approval: {start: none, pull_request: required}")
      assert.deepStrictEqual([both?.approval, both?.pullRequestApproval], ["none", "required"])
      const gateOnly = yield* loopOf("    approval: {pull_request: required}\n    judge: reviewer")
      assert.deepStrictEqual([gateOnly?.approval, gateOnly?.pullRequestApproval, gateOnly?.judge], ["required", "required", "reviewer"])
    })
  )

  it.effect("refuses a wrong gate value, an unknown gate and an unknown judge, naming the field", () =>
    Effect.gen(function* () {
      const value = yield* problemsOf(withLoop("    approval: {pull_request: maybe}"))
      assert.strictEqual(value.length, 1, value.join("\n"))
      assert.include(value[0], "loops[0].approval.pull_request")
      assert.include(value[0], "\"required\"")
      const key = yield* problemsOf(withLoop("    approval: {pr: required}"))
      assert.strictEqual(key.length, 1, key.join("\n"))
      assert.include(key[0], "loops[0].approval.pr")
      const shorthand = yield* problemsOf(withLoop("    approval: sometimes"))
      assert.strictEqual(shorthand.length, 1, shorthand.join("\n"))
      assert.include(shorthand[0], "loops[0].approval")
      const judge = yield* problemsOf(withLoop("    judge: nobody"))
      assert.strictEqual(judge.length, 1, judge.join("\n"))
      assert.include(judge[0], "loops[0].judge: unknown agent `nobody`")
    })
  )

  it.effect("four eyes: `by` on the start, `{by}` as the pull-request gate; a one-person team's config means anyone", () =>
    Effect.gen(function* () {
      const plain = yield* loopOf("    approval: required")
      assert.deepStrictEqual(plain?.approvers, { start: "anyone", pullRequest: "anyone" })
      const team = yield* loopOf("    approval: {start: required, by: other_than_labeller, pull_request: {by: other_than_approver}}")
      assert.deepStrictEqual([team?.approval, team?.pullRequestApproval], ["required", "required"])
      assert.deepStrictEqual(team?.approvers, { start: "other_than_labeller", pullRequest: "other_than_approver" })
      const wrong = yield* problemsOf(withLoop("    approval: {by: someone_else}"))
      assert.strictEqual(wrong.length, 1, wrong.join("\n"))
      assert.include(wrong[0], "loops[0].approval.by")
      const pointless = yield* problemsOf(withLoop("    approval: {start: none, by: other_than_labeller}"))
      assert.strictEqual(pointless.length, 1, pointless.join("\n"))
      assert.include(pointless[0], "loops[0].approval.by: `by` names who may approve the start")
    })
  )
})
