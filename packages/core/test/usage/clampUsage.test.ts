import { assert, describe, it } from "@effect/vitest"
import { clampUsage } from "@usine/core/usage/clampUsage"

const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0, costUsd?: number) => ({
  inputTokens,
  outputTokens,
  cachedInputTokens,
  ...(costUsd === undefined ? {} : { costUsd })
})

describe("clampUsage", () => {
  it("keeps an honest, growing total as it is", () => {
    assert.deepStrictEqual(clampUsage(undefined, usage(900, 30, 100, 0.01)), usage(900, 30, 100, 0.01))
    assert.deepStrictEqual(clampUsage(usage(900, 30), usage(1800, 60)), usage(1800, 60))
  })

  it("never lets a forged negative line go below zero or below the previous total", () => {
    assert.deepStrictEqual(clampUsage(undefined, usage(-4_998_200, -10, -5, -50)), usage(0, 0, 0, 0))
    assert.deepStrictEqual(clampUsage(usage(900, 30, 100, 0.5), usage(-4_998_200, 10, 0, -50)), usage(900, 30, 100, 0.5))
  })

  it("reads NaN and infinities as nothing", () => {
    assert.deepStrictEqual(clampUsage(usage(10, 10), usage(Number.NaN, Number.POSITIVE_INFINITY)), usage(10, 10))
  })

  it("keeps the previous cost when a later line has none", () => {
    assert.deepStrictEqual(clampUsage(usage(1, 1, 0, 2), usage(5, 5)), usage(5, 5, 0, 2))
  })
})
