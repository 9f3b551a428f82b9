import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { AgentFailure, ChildSessionBudgetFailure, DefectFailure, InfraFailure } from "@usine/core/attempt/failure"
import { AttemptCanceled, AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { dailyCapReached, raisedCap } from "@usine/engine/Brakes/dailyCap"
import { judgeProgress } from "@usine/engine/Brakes/judgeProgress"
import { crossedRunCap, runBaseline } from "@usine/engine/Brakes/runCap"

const succeeded = (commits: ReadonlyArray<string>, pullRequestNumber?: number) =>
  new AttemptSucceeded({ result: { commits, ...(pullRequestNumber === undefined ? {} : { pullRequestNumber }) } })
const failed = (failure: AgentFailure | InfraFailure | DefectFailure | ChildSessionBudgetFailure) => new AttemptFailed({ failure })
const usage = (tokens: number, costUsd?: number) => ({
  inputTokens: tokens,
  outputTokens: 0,
  cachedInputTokens: 0,
  ...(costUsd === undefined ? {} : { costUsd })
})

describe("brake decisions", () => {
  it("progress is a new head or a new pull request; infrastructure, defects and cancels are neutral", () => {
    const last = { lastHead: "h1", lastPullRequest: 4 }
    assert.deepStrictEqual(judgeProgress(succeeded(["h0", "h2"]), last), { _tag: "Progress", head: "h2", pullRequest: undefined })
    assert.deepStrictEqual(judgeProgress(succeeded(["h1"], 5), last)?._tag, "Progress")
    assert.deepStrictEqual(judgeProgress(succeeded(["h1"], 4), last), {
      _tag: "NoProgress",
      evidence: "succeeded with head h1 unchanged on pull request #4"
    })
    assert.deepStrictEqual(judgeProgress(succeeded([]), undefined), { _tag: "NoProgress", evidence: "succeeded without a commit" })
    assert.deepStrictEqual(judgeProgress(succeeded(["h1"]), undefined)?._tag, "Progress")
    assert.deepStrictEqual(judgeProgress(failed(new AgentFailure({ reason: "the agent made no change" })), last), {
      _tag: "NoProgress",
      evidence: "AgentFailure: the agent made no change"
    })
    assert.isUndefined(judgeProgress(failed(new InfraFailure({ reason: "reset" })), last))
    assert.isUndefined(judgeProgress(failed(new DefectFailure({ reason: "bug" })), last))
    assert.isUndefined(judgeProgress(new AttemptCanceled({ reason: "operator" }), last))
  })

  it("a Run's meter counts its earlier Attempts from after the last one a cap stopped", () => {
    const stop = failed(new ChildSessionBudgetFailure({ reason: "cap", limit: "1", used: "2" }))
    const attempts = [{ number: 1, outcome: failed(new InfraFailure({ reason: "x" })) }, { number: 2, outcome: stop }, { number: 3 }, { number: 4 }]
    const usages = [1, 2, 3, 4].map((number) => ({ number, usage: usage(number * 100, 0.1) }))
    assert.strictEqual(runBaseline(attempts, usages, 2).inputTokens, 100)
    assert.strictEqual(runBaseline(attempts, usages, 4).inputTokens, 300, "Attempts 1 and 2 are behind the stop")
    assert.isTrue(Option.isNone(crossedRunCap(usage(1000), { runTokens: 1000 })), "reaching the cap is not crossing it")
    assert.strictEqual(Option.getOrThrow(crossedRunCap(usage(1001), { runTokens: 1000 })).used, "1,001 tokens")
    assert.isTrue(Option.isNone(crossedRunCap(usage(10), { runCostUsd: 1 })), "no reported cost, no cost cap")
    assert.strictEqual(Option.getOrThrow(crossedRunCap(usage(10, 1.5), { runCostUsd: 1 })).limit, "$1.00")
  })

  it("a daily cap is reached at its figure, raises included", () => {
    const cap = raisedCap("loop", "build", { dailyTokens: 1000, dailyCostUsd: 5 }, { tokens: 500, costUsd: 0 })
    assert.deepStrictEqual([cap.tokens, cap.costUsd], [1500, 5])
    assert.isTrue(Option.isNone(dailyCapReached(cap, usage(1499, 4.99))))
    assert.match(Option.getOrThrow(dailyCapReached(cap, usage(1500))), /loop build used 1,500 tokens of its daily cap of 1,500 tokens/)
    assert.match(Option.getOrThrow(dailyCapReached(cap, usage(10, 5))), /spent \$5\.00 of its daily cap of \$5\.00/)
    assert.isTrue(Option.isNone(dailyCapReached(raisedCap("global", "", undefined, undefined), usage(1e9))))
  })
})
