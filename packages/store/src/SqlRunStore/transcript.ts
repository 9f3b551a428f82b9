import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import { type TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { LINE_COLUMNS, TranscriptLineFromRow } from "../ReadModel/TranscriptLine"

const UsageJson = Schema.parseJson(Usage)

/** An Attempt's transcript rows, numbered from 1 in arrival order. */
export const makeTranscript = (sql: SqlClient.SqlClient) => {
  const after = SqlSchema.findAll({
    Request: Schema.Struct({ attemptId: Schema.String, afterSeq: Schema.Number }),
    Result: TranscriptLineFromRow,
    execute: ({ afterSeq, attemptId }) =>
      sql`SELECT ${sql.literal(LINE_COLUMNS)} FROM usine_transcript_rows
          WHERE attempt_id = ${attemptId} AND seq > ${afterSeq} ORDER BY seq`
  })
  const lastSeq = (attemptId: AttemptId) =>
    sql<{ n: number | null }>`SELECT max(seq) AS n FROM usine_transcript_rows WHERE attempt_id = ${attemptId}`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0)
    )

  return {
    appendTranscript: Effect.fn("RunStore.appendTranscript")(function* (
      attemptId: AttemptId,
      entries: ReadonlyArray<TranscriptEntry>
    ) {
      return yield* sql.withTransaction(Effect.gen(function* () {
        const last = yield* lastSeq(attemptId)
        for (const [index, entry] of entries.entries()) {
          const usage = entry.usage === undefined ? null : yield* Schema.encode(UsageJson)(entry.usage)
          yield* sql`INSERT INTO usine_transcript_rows (attempt_id, seq, kind, text, tool, usage_json, at)
              VALUES (${attemptId}, ${last + index + 1}, ${entry.kind}, ${entry.text}, ${entry.tool ?? null},
                ${usage}, ${entry.at})`
        }
        return last + entries.length
      })).pipe(Effect.orDie)
    }),
    transcript: Effect.fn("RunStore.transcript")(function* (attemptId: AttemptId, afterSeq?: number) {
      const lines = yield* Effect.orDie(after({ attemptId, afterSeq: afterSeq ?? 0 }))
      return lines.map(({ attemptId: _attempt, ...entry }) => entry)
    })
  }
}
