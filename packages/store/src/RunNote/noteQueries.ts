import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Actor } from "@usine/core/run/Transition"
import { RunNote, RunNoteBody, summaryOf } from "../RunNote"
import { findAllByKey, findOneByKey } from "../findByKey"

/** The most notes a Run page reads: the newest ones. */
const NOTES_SHOWN = 200

const RunNoteFromRow = Schema.transform(
  Schema.Struct({
    id: Schema.Number,
    run_id: Schema.String,
    actor: Schema.String,
    summary: Schema.String,
    body_json: Schema.parseJson(RunNoteBody),
    after_seq: Schema.NullOr(Schema.Number),
    at: Schema.Number
  }),
  RunNote,
  {
    strict: false,
    decode: (row) => ({
      id: row.id,
      runId: row.run_id,
      actor: row.actor,
      at: row.at,
      ...(row.after_seq === null ? {} : { afterSeq: row.after_seq }),
      summary: row.summary,
      body: row.body_json
    }),
    encode: (note) => ({
      id: note.id,
      run_id: note.runId,
      actor: note.actor,
      summary: note.summary,
      body_json: note.body,
      after_seq: note.afterSeq ?? null,
      at: note.at
    })
  }
)

const encodeBody = Schema.encodeSync(Schema.parseJson(RunNoteBody))

/** A Run's notes: appended inside the transaction of the change they explain, never changed (ADR 0049). */
export const makeNoteQueries = (sql: SqlClient.SqlClient) => {
  const newest = findAllByKey(RunNoteFromRow, (runId) =>
    sql`SELECT id, run_id, actor, summary, body_json, after_seq, at FROM usine_run_notes
        WHERE run_id = ${runId} ORDER BY id DESC LIMIT ${NOTES_SHOWN}`
  )
  const stretch = findOneByKey(Schema.Struct({ at: Schema.NullOr(Schema.Number) }), (runId) =>
    sql`SELECT min(at) AS at FROM usine_run_notes
        WHERE run_id = ${runId} AND kind = 'Held' AND id > coalesce(
          (SELECT max(id) FROM usine_run_notes WHERE run_id = ${runId} AND kind = 'Released'), 0)`
  )

  return {
    /** Appends a note after the Run's newest transition; call it inside the change's transaction. */
    append: (runId: RunId, actor: Actor, body: RunNoteBody, at: number) =>
      sql`INSERT INTO usine_run_notes (run_id, kind, actor, summary, body_json, after_seq, at)
          SELECT ${runId}, ${body._tag}, ${actor}, ${summaryOf(body)}, ${encodeBody(body)},
            (SELECT max(seq) FROM usine_transitions WHERE run_id = ${runId}), ${at}`.pipe(Effect.asVoid, Effect.orDie),

    /** The Run's notes, oldest first; the newest `NOTES_SHOWN` only. */
    ofRun: (runId: RunId) => newest(runId).pipe(Effect.map((notes) => [...notes].reverse()), Effect.orDie),

    /** When the Run's current stretch of holds began: its first Held note since its last Released one. */
    heldSince: (runId: RunId) =>
      stretch(runId).pipe(
        Effect.map((row) => Option.flatMap(row, (r) => Option.fromNullable(r.at))),
        Effect.orDie
      )
  }
}

