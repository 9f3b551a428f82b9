import { Schema } from "effect"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { TranscriptEntry, TranscriptKind, Usage } from "@usine/core/transcript/TranscriptRow"

/** A stored transcript row with the Attempt it belongs to and its sequence number. */
export const TranscriptLine = Schema.Struct({
  attemptId: Schema.String.pipe(Schema.fromBrand(AttemptId)),
  seq: Schema.Number,
  ...TranscriptEntry.fields
})
export type TranscriptLine = typeof TranscriptLine.Type

/** The columns `TranscriptLineFromRow` reads. */
export const LINE_COLUMNS = "attempt_id, seq, kind, text, tool, usage_json, at"

export const TranscriptLineFromRow = Schema.transform(
  Schema.Struct({
    attempt_id: Schema.String,
    seq: Schema.Number,
    kind: TranscriptKind,
    text: Schema.String,
    tool: Schema.NullOr(Schema.String),
    usage_json: Schema.NullOr(Schema.parseJson(Usage)),
    at: Schema.Number
  }),
  TranscriptLine,
  {
    strict: true,
    decode: (row) => ({
      attemptId: row.attempt_id,
      seq: row.seq,
      kind: row.kind,
      text: row.text,
      ...(row.tool === null ? {} : { tool: row.tool }),
      ...(row.usage_json === null ? {} : { usage: row.usage_json }),
      at: row.at
    }),
    encode: (line) => ({
      attempt_id: line.attemptId,
      seq: line.seq,
      kind: line.kind,
      text: line.text,
      tool: line.tool ?? null,
      usage_json: line.usage ?? null,
      at: line.at
    })
  }
)
