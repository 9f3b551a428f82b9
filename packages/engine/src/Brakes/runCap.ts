import { Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { LoopBudget } from "@usine/core/config/BudgetConfig"
import { ChildSessionBudgetFailure } from "@usine/core/attempt/failure"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { addUsage, formatTokens, formatUsd, tokensOf, zeroUsage } from "@usine/core/usage/usageFigures"

/**
 * What the Run spent before Attempt `current`: its earlier Attempts' totals, counted from after the last Attempt a
 * cap stopped, so an operator's retry of a stopped Run starts a fresh meter instead of being stopped at once.
 */
export const runBaseline = (
  attempts: ReadonlyArray<Pick<Attempt, "number" | "outcome">>,
  usages: ReadonlyArray<{ readonly number: number; readonly usage: Usage }>,
  current: number
): Usage => {
  const stopped = attempts
    .filter((a) => a.number < current && a.outcome?._tag === "Failed" && a.outcome.failure._tag === "ChildSessionBudgetFailure")
    .reduce((last, a) => Math.max(last, a.number), 0)
  return usages.filter((u) => u.number > stopped && u.number < current).reduce((sum, u) => addUsage(sum, u.usage), zeroUsage)
}

/** The failure of an Attempt whose Run total went past a cap of the Loop, with the figures; None while within. */
export const crossedRunCap = (total: Usage, budget: LoopBudget | undefined): Option.Option<ChildSessionBudgetFailure> => {
  const tokens = tokensOf(total)
  if (budget?.runTokens !== undefined && tokens > budget.runTokens) {
    return Option.some(new ChildSessionBudgetFailure({
      reason: `the Run used ${formatTokens(tokens)}, past its cap of ${formatTokens(budget.runTokens)} (budget.run_tokens)`,
      evidence: figures(total),
      limit: formatTokens(budget.runTokens),
      used: formatTokens(tokens)
    }))
  }
  if (budget?.runCostUsd !== undefined && total.costUsd !== undefined && total.costUsd > budget.runCostUsd) {
    return Option.some(new ChildSessionBudgetFailure({
      reason: `the Run cost ${formatUsd(total.costUsd)}, past its cap of ${formatUsd(budget.runCostUsd)} (budget.run_cost_usd)`,
      evidence: figures(total),
      limit: formatUsd(budget.runCostUsd),
      used: formatUsd(total.costUsd)
    }))
  }
  return Option.none()
}

const figures = (u: Usage) =>
  `input ${u.inputTokens} (cached ${u.cachedInputTokens}), output ${u.outputTokens}` +
  (u.costUsd === undefined ? "" : `, cost $${u.costUsd.toFixed(4)}`)
