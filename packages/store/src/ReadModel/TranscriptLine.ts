import { Schema } from "effect"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { column } from "../column"
import { OptionalFromNull } from "../OptionalFromNull"

/** A stored transcript row with the Attempt it belongs to and its sequence number. */
export const TranscriptLine = Schema.Struct({
  attemptId: Schema.String.pipe(Schema.fromBrand(AttemptId)),
  seq: Schema.Number,
  ...TranscriptEntry.fields
})
export type TranscriptLine = typeof TranscriptLine.Type

/** The columns `TranscriptLineFromRow` reads. */
export const LINE_COLUMNS = "attempt_id, seq, kind, text, tool, usage_json, at"

export const TranscriptLineFromRow = Schema.Struct({
  ...TranscriptLine.fields,
  attemptId: column("attempt_id", TranscriptLine.fields.attemptId),
  tool: OptionalFromNull(Schema.String),
  usage: OptionalFromNull(Schema.parseJson(Usage)).pipe(Schema.fromKey("usage_json"))
})
