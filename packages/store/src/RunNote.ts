import { Match, Schema } from "effect"
import { RunId } from "@usine/core/ids/RunId"
import { Actor } from "@usine/core/run/Transition"

const HoldKindSchema = Schema.Literal("AgentQuota", "DailyCap", "NoProgress", "OpenPullRequests", "RetryBackoff")

/** What a Run tells its Attempts: the parts Edit and retry may change. */
export const RunSetup = Schema.Struct({
  task: Schema.String,
  agent: Schema.String,
  model: Schema.optional(Schema.String)
})
export type RunSetup = typeof RunSetup.Type

/** A brake began to hold the Run, or holds it for a new reason. */
const HeldNote = Schema.TaggedStruct("Held", {
  holdKind: HoldKindSchema,
  reason: Schema.String,
  /** When the brake lifts by itself, if it does. */
  until: Schema.optional(Schema.Number)
})

/** The Run no longer waits: how long it was held, and why it went, as far as the ledger tells. */
const ReleasedNote = Schema.TaggedStruct("Released", {
  holdKind: HoldKindSchema,
  /** The last reason it was held for. */
  reason: Schema.String,
  heldMs: Schema.Number,
  why: Schema.String
})

/** An operator's Edit and retry: what the earlier Attempts were told, and what the next ones are told. */
const EditedNote = Schema.TaggedStruct("Edited", { before: RunSetup, after: RunSetup })

/**
 * An Attempt's usage as its CLI's stream reported it (clamped) differs from what the model proxy counted, which the
 * caps judged (ADR 0086).
 */
const UsageDisagreedNote = Schema.TaggedStruct("UsageDisagreed", {
  attempt: Schema.Number,
  streamTokens: Schema.Number,
  meteredTokens: Schema.Number
})

export const RunNoteBody = Schema.Union(HeldNote, ReleasedNote, EditedNote, UsageDisagreedNote)
export type RunNoteBody = typeof RunNoteBody.Type

/** One row of a Run's append-only notes: what its transition log cannot say (ADR 0049). */
export const RunNote = Schema.Struct({
  id: Schema.Number,
  runId: Schema.String.pipe(Schema.fromBrand(RunId)),
  actor: Actor,
  /** The GitHub login of the signed-in person behind an `operator` note (ADR 0098); absent for older rows and scripts. */
  login: Schema.optional(Schema.String),
  at: Schema.Number,
  /** The Run's newest transition when the note was written; absent before the first. */
  afterSeq: Schema.optional(Schema.Number),
  /** The note in one line, as written. */
  summary: Schema.String,
  body: RunNoteBody
})
export type RunNote = typeof RunNote.Type

/** `6h 12m`, `3m 5s`, `12s`. */
export const formatHeldFor = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  const [d, h, m, s] = [Math.floor(seconds / 86_400), Math.floor(seconds / 3600) % 24, Math.floor(seconds / 60) % 60, seconds % 60]
  if (d > 0) return `${d}d ${h}h`
  if (h > 0) return `${h}h ${m}m`
  if (m > 0) return `${m}m ${s}s`
  return `${s}s`
}

/** The fields Edit and retry changed, in a fixed order. */
export const changedFields = (before: RunSetup, after: RunSetup): ReadonlyArray<keyof RunSetup> =>
  (["task", "agent", "model"] as const).filter((field) => before[field] !== after[field])

/** What an Attempt's two usage figures say, in one line. */
export const usageDisagreedLine = (note: { readonly attempt: number; readonly streamTokens: number; readonly meteredTokens: number }) =>
  `Attempt ${note.attempt}: the agent's stream reported ${note.streamTokens.toLocaleString("en-US")} tokens, ` +
  `usine's model proxy counted ${note.meteredTokens.toLocaleString("en-US")}; the caps judged the proxy's count`

/** The note's one line. */
export const summaryOf = (body: RunNoteBody): string =>
  Match.valueTags(body, {
    Held: ({ reason }) => `held: ${reason}`,
    Released: ({ heldMs, why }) => `released after ${formatHeldFor(heldMs)}: ${why}`,
    Edited: ({ after, before }) => {
      const changed = changedFields(before, after)
      return `edited and retried: ${changed.length === 0 ? "nothing" : changed.join(", ")} changed`
    },
    UsageDisagreed: (note) => usageDisagreedLine(note)
  })
