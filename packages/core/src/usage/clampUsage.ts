import type { Usage } from "../transcript/TranscriptRow"

/** A figure an agent's stream reported, as something a total may hold: a finite number not below zero. */
const figure = (value: number | undefined): number => (value !== undefined && Number.isFinite(value) && value > 0 ? value : 0)

/**
 * A session total read from the CLI's stream, as usine keeps it (ADR 0086): every figure non-negative and never
 * below the Attempt's previous total, so a forged line can neither lower what the Attempt spent nor show a negative
 * figure. A cost appears once either total reported one.
 */
export const clampUsage = (previous: Usage | undefined, next: Usage): Usage => {
  const cost = next.costUsd === undefined && previous?.costUsd === undefined
    ? undefined
    : Math.max(figure(previous?.costUsd), figure(next.costUsd))
  return {
    inputTokens: Math.max(figure(previous?.inputTokens), figure(next.inputTokens)),
    outputTokens: Math.max(figure(previous?.outputTokens), figure(next.outputTokens)),
    cachedInputTokens: Math.max(figure(previous?.cachedInputTokens), figure(next.cachedInputTokens)),
    ...(cost === undefined ? {} : { costUsd: cost })
  }
}
