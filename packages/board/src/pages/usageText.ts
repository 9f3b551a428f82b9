import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { formatUsd, tokensOf } from "@usine/core/usage/usageFigures"
import type { CapStatus } from "../BoardViews/brakesView"

/** Input plus output tokens, as caps count them; none without usage. */
export const tokenCount = (usage: Usage | undefined): number => (usage === undefined ? 0 : tokensOf(usage))

/** `1,234 tokens ($0.12)`: what a scope used. */
export const usageText = (usage: Usage | undefined): string =>
  `${tokenCount(usage).toLocaleString("en-US")} tokens${usage?.costUsd === undefined ? "" : ` (${formatUsd(usage.costUsd)})`}`

/** `used 900 of 1,000 tokens today, $1.20 of $5.00`. */
export const capText = (cap: CapStatus): string => {
  const parts: Array<string> = []
  if (cap.tokens !== undefined) parts.push(`${tokenCount(cap.used).toLocaleString("en-US")} of ${cap.tokens.toLocaleString("en-US")} tokens`)
  if (cap.costUsd !== undefined) parts.push(`${formatUsd(cap.used?.costUsd ?? 0)} of ${formatUsd(cap.costUsd)}`)
  return `${parts.join(", ")} today (UTC)`
}
