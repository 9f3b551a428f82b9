import { Clock, Effect, Option } from "effect"
import { budgetDayOf } from "@usine/core/config/BudgetConfig"
import { BrakeStore } from "@usine/store/BrakeStore"
import { formatTokens, formatUsd } from "@usine/core/usage/usageFigures"
import { LoopPolicies } from "../LoopPolicies"
import { CapRaiseTooLow, DailyCapNotSet, LoopNotConfigured } from "./OperatorRefusals"

/** Today's cap as the operator wants it; an absent figure keeps today's. */
export interface CapTarget {
  readonly tokens?: number | undefined
  readonly costUsd?: number | undefined
}

/** The day's caps of a scope after a raise. */
interface RaisedCap {
  readonly loop: string | undefined
  readonly day: string
  readonly tokens: number | undefined
  readonly costUsd: number | undefined
}

/**
 * Sets today's (UTC) daily cap of a Loop, or of the daemon when `loop` is absent, at or above usine.yaml's. Setting
 * the same figure again changes nothing; the next UTC day starts from usine.yaml's caps again.
 */
export const raiseDailyCap = Effect.fn("RunEngine.raiseDailyCap")(function*(loop: string | undefined, to: CapTarget) {
  const policies = yield* LoopPolicies
  const brakes = yield* BrakeStore
  const scope = loop === undefined ? "the daemon" : `loop ${loop}`
  if (loop !== undefined && Option.isNone(policies.loop(loop))) return yield* new LoopNotConfigured({ loop })
  const configured = loop === undefined ? policies.budget() : Option.getOrUndefined(policies.loop(loop))?.budget
  const tokensCap = configured?.dailyTokens
  const costCap = configured?.dailyCostUsd
  if (tokensCap === undefined && costCap === undefined) return yield* new DailyCapNotSet({ scope })
  if ((to.tokens !== undefined && tokensCap === undefined) || (to.costUsd !== undefined && costCap === undefined)) {
    return yield* new DailyCapNotSet({ scope: `${scope} (${to.tokens !== undefined && tokensCap === undefined ? "tokens" : "cost"})` })
  }
  if (to.tokens !== undefined && tokensCap !== undefined && to.tokens < tokensCap) {
    return yield* new CapRaiseTooLow({ scope, configured: formatTokens(tokensCap), requested: formatTokens(to.tokens) })
  }
  if (to.costUsd !== undefined && costCap !== undefined && to.costUsd < costCap) {
    return yield* new CapRaiseTooLow({ scope, configured: formatUsd(costCap), requested: formatUsd(to.costUsd) })
  }
  const day = budgetDayOf(yield* Clock.currentTimeMillis)
  const name = loop ?? ""
  const kind = loop === undefined ? ("global" as const) : ("loop" as const)
  const current = (yield* brakes.raises(day)).find((r) => r.scope === kind && r.name === name)
  const tokens = to.tokens === undefined ? current?.tokens ?? 0 : to.tokens - (tokensCap ?? 0)
  const costUsd = to.costUsd === undefined ? current?.costUsd ?? 0 : to.costUsd - (costCap ?? 0)
  yield* brakes.raiseCap({ day, scope: kind, name, tokens, costUsd })
  yield* Effect.logInfo(`daily cap of ${scope} raised for ${day}`)
  return {
    loop,
    day,
    tokens: tokensCap === undefined ? undefined : tokensCap + tokens,
    costUsd: costCap === undefined ? undefined : costCap + costUsd
  } satisfies RaisedCap
})
