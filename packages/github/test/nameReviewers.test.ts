import { assert, describe, it } from "@effect/vitest"
import type { Labeller } from "@usine/github/LabelActors"
import { nameReviewers, type ReviewerContext } from "@usine/github/WriteBack/nameReviewers"

const at = (iso: string) => Date.parse(iso)
const person = (login: string, when: string): Labeller => ({ login, isBot: false, at: when })

const context: ReviewerContext = {
  ifSource: '"ready-for-agent" in item.labels',
  receivedAt: at("2026-12-02T10:00:00.400Z"),
  approval: undefined,
  self: "usine-bot"
}

describe("nameReviewers", () => {
  it("names the labeller of the label the if: reads, added before the trigger saw it (same second counts)", () => {
    const labellers = new Map([
      ["ready-for-agent", person("carol", "2026-12-02T10:00:00Z")],
      ["agent-working", { login: "usine-bot", isBot: false, at: "2026-12-02T10:00:05Z" }]
    ])
    assert.deepStrictEqual(nameReviewers(["labeller", "dave", "Carol"], context, labellers), { logins: ["carol", "dave"], notes: [] })
  })

  it("a label added again after the Run, or by a bot, names nobody: a note, never a login", () => {
    const later = new Map([["ready-for-agent", person("carol", "2026-12-02T10:00:02Z")]])
    const byBot = new Map([["ready-for-agent", { login: "renovate[bot]", isBot: true, at: "2026-12-02T09:00:00Z" }]])
    for (const labellers of [later, byBot]) {
      const named = nameReviewers(["labeller"], context, labellers)
      assert.deepStrictEqual(named.logins, [])
      assert.match(named.notes[0] ?? "", /^reviewer labeller skipped/)
    }
  })

  it("an if: that reads labels another way takes the newest person's label of those it could read", () => {
    const labellers = new Map([
      ["bug", person("erin", "2026-12-02T09:00:00Z")],
      ["ready-for-agent", person("carol", "2026-12-02T09:30:00Z")],
      // An earlier Run's status label: usine's own, never the labeller.
      ["ready-for-review", person("usine-bot", "2026-12-02T09:40:00Z")]
    ])
    const any = { ...context, ifSource: 'item.labels.exists(l, l.startsWith("ready"))' }
    assert.deepStrictEqual(nameReviewers(["labeller"], any, labellers).logins, ["carol"])
  })

  it("approver is board.operator for a Board approval; without it a note that says why; usine's own account is never asked", () => {
    const approved = { ...context, approval: { actor: "operator", reason: "approved" } }
    assert.deepStrictEqual(nameReviewers(["approver"], { ...approved, operator: "dana" }, undefined), { logins: ["dana"], notes: [] })
    assert.deepStrictEqual(nameReviewers(["approver"], { ...approved, approval: { actor: "usine", reason: "approval timeout" }, operator: "dana" }, undefined).logins, [])
    assert.deepStrictEqual(nameReviewers(["approver", "USINE-BOT"], approved, undefined), {
      logins: [],
      notes: [
        "reviewer approver skipped: the Run's approval (operator, approved) names no GitHub login (set board.operator)",
        "reviewer USINE-BOT skipped: USINE-BOT is usine's own account, the pull request's author"
      ]
    })
    assert.match(nameReviewers(["approver"], context, undefined).notes[0] ?? "", /nobody approved the Run/)
  })
})
