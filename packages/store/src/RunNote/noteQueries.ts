import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Actor } from "@usine/core/run/Transition"
import { column } from "../column"
import { OptionalFromNull } from "../OptionalFromNull"
import { RunNote, RunNoteBody, summaryOf } from "../RunNote"
import { findAllByKey, findOneByKey } from "../findByKey"
import { loginFor } from "../SqlRunStore/RunWriter"

/** The most notes a Run page reads: the newest ones. */
const NOTES_SHOWN = 200

const RunNoteFromRow = Schema.Struct({
  ...RunNote.fields,
  runId: column("run_id", RunNote.fields.runId),
  afterSeq: OptionalFromNull(Schema.Number).pipe(Schema.fromKey("after_seq")),
  login: OptionalFromNull(Schema.String),
  body: column("body_json", Schema.parseJson(RunNoteBody))
})

const encodeBody = Schema.encodeSync(Schema.parseJson(RunNoteBody))

/** A Run's notes: appended inside the transaction of the change they explain, never changed (ADR 0049). */
export const makeNoteQueries = (sql: SqlClient.SqlClient) => {
  const newest = findAllByKey(RunNoteFromRow, (runId) =>
    sql`SELECT id, run_id, actor, login, summary, body_json, after_seq, at FROM usine_run_notes
        WHERE run_id = ${runId} ORDER BY id DESC LIMIT ${NOTES_SHOWN}`
  )
  const stretch = findOneByKey(Schema.Struct({ at: Schema.NullOr(Schema.Number) }), (runId) =>
    sql`SELECT min(at) AS at FROM usine_run_notes
        WHERE run_id = ${runId} AND kind = 'Held' AND id > coalesce(
          (SELECT max(id) FROM usine_run_notes WHERE run_id = ${runId} AND kind = 'Released'), 0)`
  )

  return {
    /**
     * Appends a note after the Run's newest transition; call it inside the change's transaction. An operator's note
     * names the signed-in person behind it, when there is one.
     */
    append: (runId: RunId, actor: Actor, body: RunNoteBody, at: number) =>
      Effect.flatMap(loginFor(actor), ({ login }) =>
        sql`INSERT INTO usine_run_notes (run_id, kind, actor, login, summary, body_json, after_seq, at)
            SELECT ${runId}, ${body._tag}, ${actor}, ${login ?? null}, ${summaryOf(body)}, ${encodeBody(body)},
              (SELECT max(seq) FROM usine_transitions WHERE run_id = ${runId}), ${at}`).pipe(Effect.asVoid),

    /** The Run's notes, oldest first; the newest `NOTES_SHOWN` only. */
    ofRun: (runId: RunId) => newest(runId).pipe(Effect.map((notes) => [...notes].reverse())),

    /** When the Run's current stretch of holds began: its first Held note since its last Released one. */
    heldSince: (runId: RunId) =>
      stretch(runId).pipe(
        Effect.map((row) => Option.flatMap(row, (r) => Option.fromNullable(r.at)))
      )
  }
}

