import type { Usage } from "../transcript/TranscriptRow"

export const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }

/** What a token cap counts: input (cached included, as harnesses report it) plus output. */
export const tokensOf = (usage: Usage): number => usage.inputTokens + usage.outputTokens

/** Two totals together; cost only where either reported one. */
export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  ...(a.costUsd === undefined && b.costUsd === undefined ? {} : { costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0) })
})

export const formatTokens = (tokens: number): string => `${tokens.toLocaleString("en-US")} tokens`

export const formatUsd = (usd: number): string => `$${usd.toFixed(2)}`
