import { Option } from "effect"
import type { GlobalBudget } from "@usine/core/config/BudgetConfig"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { formatTokens, formatUsd, tokensOf } from "@usine/core/usage/usageFigures"

/** One daily cap as it stands today: usine.yaml's figure plus the operator's raises for the day. */
interface DailyCap {
  readonly scope: "global" | "loop"
  /** The Loop, or `""` for global. */
  readonly name: string
  readonly tokens: number | undefined
  readonly costUsd: number | undefined
}

/** usine.yaml's caps raised by the day's raises. */
export const raisedCap = (
  scope: DailyCap["scope"],
  name: string,
  configured: GlobalBudget | undefined,
  raise: { readonly tokens: number; readonly costUsd: number } | undefined
): DailyCap => ({
  scope,
  name,
  tokens: configured?.dailyTokens === undefined ? undefined : configured.dailyTokens + (raise?.tokens ?? 0),
  costUsd: configured?.dailyCostUsd === undefined ? undefined : configured.dailyCostUsd + (raise?.costUsd ?? 0)
})

/** Why the scope admits no new Attempt today, or None while it is under every cap it has. */
export const dailyCapReached = (cap: DailyCap, used: Usage | undefined): Option.Option<string> => {
  const who = cap.scope === "global" ? "the daemon" : `loop ${cap.name}`
  const tokens = used === undefined ? 0 : tokensOf(used)
  if (cap.tokens !== undefined && tokens >= cap.tokens) {
    return Option.some(`${who} used ${formatTokens(tokens)} of its daily cap of ${formatTokens(cap.tokens)} (UTC day)`)
  }
  const cost = used?.costUsd ?? 0
  if (cap.costUsd !== undefined && cost >= cap.costUsd) {
    return Option.some(`${who} spent ${formatUsd(cost)} of its daily cap of ${formatUsd(cap.costUsd)} (UTC day)`)
  }
  return Option.none()
}
