import { assert, describe, it } from "@effect/vitest"
import { formatAuditEntry } from "../src/audit/formatAuditEntry"
import { parseSince } from "../src/audit/parseSince"

const base = { id: 1, at: 0, time: "2026-12-05T08:00:00.000Z", outcome: "done" as const }

describe("usine audit's lines", () => {
  it("name who, what, where, then what was said and what became of it", () => {
    assert.strictEqual(
      formatAuditEntry({
        ...base, by: "dana", action: "intervene", repository: "acme/widgets", item: "acme/widgets#2", loop: "fix",
        runId: "0123456789abcdef0123456789abcdef", detail: "use the fixture", result: "queued: in the inbox"
      }),
      '2026-12-05T08:00:00.000Z  @dana  intervene  acme/widgets#2 run 01234567 loop fix  "use the fixture"  → queued: in the inbox'
    )
    assert.strictEqual(formatAuditEntry({ ...base, by: "operator", action: "pause", loop: "fix" }), "2026-12-05T08:00:00.000Z  operator  pause  loop fix")
    assert.strictEqual(
      formatAuditEntry({ ...base, by: "tom", action: "approve", outcome: "refused", repository: "acme/widgets", result: "needs write" }),
      "2026-12-05T08:00:00.000Z  @tom  approve (refused)  acme/widgets  → needs write"
    )
    assert.strictEqual(
      formatAuditEntry({ ...base, by: "agent", for: "dana", action: "openPullRequest", repository: "acme/widgets", result: "#7" }),
      "2026-12-05T08:00:00.000Z  agent for @dana  openPullRequest  acme/widgets  → #7"
    )
    assert.strictEqual(formatAuditEntry({ ...base, by: "agent", action: "push" }), "2026-12-05T08:00:00.000Z  agent  push  -")
  })

  it("read --since as a date or a time back from now", () => {
    const now = Date.parse("2026-12-05T08:00:00Z")
    assert.strictEqual(parseSince("30m", now), now - 30 * 60_000)
    assert.strictEqual(parseSince("12h", now), now - 12 * 3_600_000)
    assert.strictEqual(parseSince("7d", now), now - 7 * 86_400_000)
    assert.strictEqual(parseSince("2026-12-01T09:00Z", now), Date.parse("2026-12-01T09:00Z"))
    assert.isUndefined(parseSince("yesterday-ish", now))
  })
})
