import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import {
  droppedOfMarker,
  emptyFill,
  fitTranscript,
  type TranscriptCap,
  type TranscriptFill,
  TRUNCATED_TOOL,
  truncationMarker,
  utf8Length
} from "@usine/core/transcript/transcriptCap"
import { type TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { LINE_COLUMNS, TranscriptLineFromRow } from "../ReadModel/TranscriptLine"

const UsageJson = Schema.parseJson(Usage)

const defaultCap: TranscriptCap = { rows: defaultOutputCaps.transcriptRows, bytes: defaultOutputCaps.transcriptBytes }

/** Attempts whose fill is remembered between appends; the oldest is forgotten past this (it is read again if needed). */
const REMEMBERED_FILLS = 256

/**
 * An Attempt's transcript rows, numbered from 1 in arrival order, up to its cap (ADR 0085): past it one marker row,
 * last, counts what was dropped. Each Attempt's fill is read once from the ledger, then kept in memory: this daemon is
 * the only writer of its ledger, and the fill is updated only after its transaction committed.
 */
export const makeTranscript = (sql: SqlClient.SqlClient) => {
  const after = SqlSchema.findAll({
    Request: Schema.Struct({ attemptId: Schema.String, afterSeq: Schema.Number }),
    Result: TranscriptLineFromRow,
    execute: ({ afterSeq, attemptId }) =>
      sql`SELECT ${sql.literal(LINE_COLUMNS)} FROM usine_transcript_rows
          WHERE attempt_id = ${attemptId} AND seq > ${afterSeq} ORDER BY seq`
  })
  const fills = new Map<AttemptId, TranscriptFill>()

  const storedFill = (attemptId: AttemptId) =>
    Effect.gen(function* () {
      const known = fills.get(attemptId)
      if (known !== undefined) return known
      const [totals] = yield* sql<{ n: number; bytes: number }>`SELECT count(*) AS n,
          coalesce(sum(octet_length(text)), 0) AS bytes FROM usine_transcript_rows WHERE attempt_id = ${attemptId}`
      const [marker] = yield* after({ attemptId, afterSeq: Math.max(0, (totals?.n ?? 0) - 1) })
      const dropped = marker?.tool === TRUNCATED_TOOL ? droppedOfMarker(marker) : undefined
      if (totals === undefined || totals.n === 0) return emptyFill
      return dropped === undefined || marker === undefined
        ? { rows: totals.n, bytes: totals.bytes, dropped: undefined }
        : { rows: totals.n - 1, bytes: totals.bytes - utf8Length(marker.text), dropped }
    })

  const remember = (attemptId: AttemptId, fill: TranscriptFill) => {
    fills.delete(attemptId)
    fills.set(attemptId, fill)
    if (fills.size > REMEMBERED_FILLS) fills.delete(fills.keys().next().value as AttemptId)
  }

  const insert = (attemptId: AttemptId, seq: number, entry: TranscriptEntry) =>
    Effect.gen(function* () {
      const usage = entry.usage === undefined ? null : yield* Schema.encode(UsageJson)(entry.usage)
      yield* sql`INSERT INTO usine_transcript_rows (attempt_id, seq, kind, text, tool, usage_json, at)
          VALUES (${attemptId}, ${seq}, ${entry.kind}, ${entry.text}, ${entry.tool ?? null}, ${usage}, ${entry.at})`
    })

  return {
    appendTranscript: Effect.fn("Transcripts.appendTranscript")(function* (
      attemptId: AttemptId,
      entries: ReadonlyArray<TranscriptEntry>,
      cap: TranscriptCap = defaultCap
    ) {
      // Only the ledger writes the marker's tool name: an agent's tool of that name is kept under another.
      const incoming = entries.map((entry) => (entry.tool === TRUNCATED_TOOL ? { ...entry, tool: `${TRUNCATED_TOOL} (agent)` } : entry))
      const written = yield* sql.withTransaction(Effect.gen(function* () {
        const fill = yield* storedFill(attemptId)
        const fitted = fitTranscript(fill, incoming, cap)
        for (const [index, entry] of fitted.kept.entries()) yield* insert(attemptId, fill.rows + index + 1, entry)
        const dropped = fitted.fill.dropped
        const markerSeq = fitted.fill.rows + 1
        if (dropped !== undefined && fill.dropped === undefined) {
          yield* insert(attemptId, markerSeq, truncationMarker(dropped, cap))
        } else if (dropped !== undefined && dropped !== fill.dropped) {
          const marker = truncationMarker(dropped, cap)
          const usage = marker.usage === undefined ? null : yield* Schema.encode(UsageJson)(marker.usage)
          yield* sql`UPDATE usine_transcript_rows SET text = ${marker.text}, usage_json = ${usage}
              WHERE attempt_id = ${attemptId} AND seq = ${markerSeq}`
        }
        return fitted.fill
      }))
      remember(attemptId, written)
      return written.rows + (written.dropped === undefined ? 0 : 1)
    }),
    transcriptPosition: Effect.fn("Transcripts.transcriptPosition")(function* (attemptId: AttemptId) {
      const fill = yield* storedFill(attemptId)
      return fill.rows + (fill.dropped?.rows ?? 0)
    }),
    transcript: Effect.fn("Transcripts.transcript")(function* (attemptId: AttemptId, afterSeq?: number) {
      const lines = yield* after({ attemptId, afterSeq: afterSeq ?? 0 })
      return lines.map(({ attemptId: _attempt, ...entry }) => entry)
    })
  }
}
