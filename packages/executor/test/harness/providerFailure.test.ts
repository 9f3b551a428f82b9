import { assert, describe, it } from "@effect/vitest"
import { providerFailure, retryAt } from "../../src/harness/providerFailure"

describe("providerFailure", () => {
  it.each([
    ["exceeded retry limit, last status: 429 Too Many Requests", "InfraFailure", "rate limiting"],
    ["unexpected status 401 Unauthorized: invalid api key", "AgentFailure", "authenticate"],
    ['API Error: 529 {"type":"overloaded_error"}', "InfraFailure", "unavailable"],
    ["stream disconnected before completion: error sending request", "InfraFailure", "unreachable"],
    // Claude Code's words for a refused connection and a dropped one.
    ["API Error: Unable to connect to API (ConnectionRefused)", "InfraFailure", "unreachable"],
    ["API Error: Unable to connect to API (ECONNRESET)", "InfraFailure", "unreachable"],
    ["the model refused: content policy", "AgentFailure", "reported an error"]
  ])("classifies %s", (message, tag, reason) => {
    const failure = providerFailure(message, 0)
    assert.strictEqual(failure._tag, tag)
    assert.include(failure.reason, reason)
    assert.strictEqual(failure.evidence, message)
  })

  it("reads a reset time from the forms providers use", () => {
    const at = 1_000_000
    assert.strictEqual(retryAt("usage limit reached|1796040000", at), 1796040000_000)
    assert.strictEqual(retryAt("Please try again in 1h 30m.", at), at + 90 * 60_000)
    assert.strictEqual(retryAt("rate limited; retry after 20 seconds", at), at + 20_000)
    assert.strictEqual(retryAt("Rate limit reached. Please try again in 250ms.", at), at + 250)
    assert.strictEqual(retryAt("429, retry-after: 120", at), at + 120_000)
    assert.strictEqual(retryAt("limit resets at 2026-11-30T12:00:00Z", at), Date.parse("2026-11-30T12:00:00Z"))
    assert.isUndefined(retryAt("429 Too Many Requests", at))
  })
})
