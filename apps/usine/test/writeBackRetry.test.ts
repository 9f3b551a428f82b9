import { assert, describe, it } from "@effect/vitest"
import { retryAtAfter, WRITE_BACK_MAX_TRIES } from "../src/daemon/writeBack"

describe("write-back retries", () => {
  it("waits 2 s doubling after each failed try and gives up after the last", () => {
    const waits = Array.from({ length: WRITE_BACK_MAX_TRIES }, (_, i) => retryAtAfter(i + 1, 1_000))
    assert.deepStrictEqual(waits, [3_000, 5_000, 9_000, 17_000, 33_000, 65_000, 129_000, undefined])
    assert.strictEqual(retryAtAfter(WRITE_BACK_MAX_TRIES + 3, 0), undefined)
  })
})
