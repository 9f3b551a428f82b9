import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { attemptIdOf, parseAttemptId } from "@usine/core/ids/AttemptId"
import {
  approvalEventIdOf,
  cycleResetEventIdOf,
  EventId,
  itemEventIdOf,
  tickEventIdOf
} from "@usine/core/ids/EventId"
import { itemKeyOf, parseItemKey, scheduleItemKeyOf } from "@usine/core/ids/ItemKey"
import { runIdOf } from "@usine/core/ids/RunId"

describe("identities", () => {
  it("item keys lowercase the repository", () => {
    expect(itemKeyOf("Acme/Widgets", 7)).toBe('["github","acme/widgets",7]')
    expect(scheduleItemKeyOf("Acme/Widgets")).toBe('["github","acme/widgets"]')
    expect(parseItemKey(itemKeyOf("a/b", 3))).toEqual({ repository: "a/b", number: 3 })
  })

  it("event ids are the dedup key, with the generation only above zero", () => {
    const base = { loop: "fix", repository: "Acme/W", number: 4, contentHash: "abc" }
    expect(itemEventIdOf({ ...base, generation: 0 })).toBe('["fix","acme/w",4,"abc"]')
    expect(itemEventIdOf({ ...base, generation: 2 })).toBe('["fix","acme/w",4,"abc",2]')
    expect(tickEventIdOf({ loop: "nightly", repository: "a/b", scheduledAt: "2026-01-01T00:00:00.000Z" })).toBe(
      '["nightly","a/b","2026-01-01T00:00:00.000Z"]'
    )
    expect(cycleResetEventIdOf("ask-1")).toBe("cycle-budget-reset:ask-1")
  })

  it("run ids hash the dedup key as the seed defines", () => {
    const eventId = EventId('["fix","acme/w",4,"abc"]')
    const expected = createHash("sha256").update(`@usine/engine/DurableRun-${eventId}`).digest("hex").slice(0, 32)
    expect(runIdOf(eventId)).toBe(expected)
    expect(runIdOf(eventId)).toHaveLength(32)
    expect(approvalEventIdOf(runIdOf(eventId))).toBe(`["operator-approval","${expected}"]`)
  })

  it("attempt ids are runId/step/number", () => {
    const runId = runIdOf(EventId("x"))
    const id = attemptIdOf(runId, 2)
    expect(id).toBe(`${runId}/main/2`)
    expect(parseAttemptId(id)).toEqual({ runId, step: "main", number: 2 })
  })
})
