import { Schema } from "effect"

/** What a line of an agent's stream meant, normalized across harnesses. */
export const TranscriptKind = Schema.Literal(
  "assistant",
  "tool_call",
  "tool_result",
  "error",
  "usage",
  "operator",
  "system",
  "verify"
)
export type TranscriptKind = typeof TranscriptKind.Type

/** Token usage as a session total; a later row for the same Attempt replaces, never adds to, an earlier one. */
export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  cachedInputTokens: Schema.Number,
  costUsd: Schema.optional(Schema.Number)
})
export type Usage = typeof Usage.Type

/** One transcript row, before the ledger numbers it. */
export const TranscriptEntry = Schema.Struct({
  kind: TranscriptKind,
  text: Schema.String,
  /** Tool name for tool rows. */
  tool: Schema.optional(Schema.String),
  usage: Schema.optional(Usage),
  at: Schema.Number
})
export type TranscriptEntry = typeof TranscriptEntry.Type
