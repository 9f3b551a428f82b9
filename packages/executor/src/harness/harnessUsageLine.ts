import type { Usage } from "@usine/core/transcript/TranscriptRow"

/** The human line of a usage row; the numbers themselves travel in the row's `usage`. */
export const harnessUsageLine = (usage: Usage): string =>
  `tokens: ${usage.inputTokens} in (${usage.cachedInputTokens} cached), ${usage.outputTokens} out` +
  (usage.costUsd === undefined ? "" : `, $${usage.costUsd.toFixed(4)}`)
