import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A Run note of kind `UsageDisagreed` (ADR 0086): what the agent's stream said it spent beside what the model proxy
 * counted. A CHECK cannot be altered, so the table is rebuilt, its rows (ids kept) copied over, its triggers again.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE usine_run_notes_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    kind TEXT NOT NULL CHECK (kind IN ('Held', 'Released', 'Edited', 'UsageDisagreed')),
    actor TEXT NOT NULL CHECK (actor IN ('engine', 'operator', 'trigger')),
    summary TEXT NOT NULL,
    body_json TEXT NOT NULL,
    after_seq INTEGER,
    at INTEGER NOT NULL
  )`)
  yield* sql.unsafe(`INSERT INTO usine_run_notes_next (id, run_id, kind, actor, summary, body_json, after_seq, at)
    SELECT id, run_id, kind, actor, summary, body_json, after_seq, at FROM usine_run_notes`)
  yield* sql.unsafe("DROP TABLE usine_run_notes")
  yield* sql.unsafe("ALTER TABLE usine_run_notes_next RENAME TO usine_run_notes")
  yield* sql.unsafe("CREATE INDEX usine_run_notes_run ON usine_run_notes (run_id, id)")
  yield* sql.unsafe(`CREATE TRIGGER usine_run_notes_no_update BEFORE UPDATE ON usine_run_notes
    BEGIN SELECT RAISE(ABORT, 'usine_run_notes is append-only'); END`)
  yield* sql.unsafe(`CREATE TRIGGER usine_run_notes_no_delete BEFORE DELETE ON usine_run_notes
    BEGIN SELECT RAISE(ABORT, 'usine_run_notes is append-only'); END`)
})
