import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Write-back after a cancel, notes and giving up (ADR 0065): `usine_write_backs.phase` takes `canceled` (a CHECK cannot
 * be altered, so the table is rebuilt and its rows copied over), `notes_json` keeps what a write skipped (a reviewer
 * nobody could name), `gave_up_at` when a write stopped being tried.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE usine_write_backs_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    transition_seq INTEGER NOT NULL UNIQUE,
    phase TEXT NOT NULL CHECK (phase IN ('running', 'succeeded', 'failed', 'canceled')),
    created_at INTEGER NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    done_at INTEGER,
    last_error TEXT,
    notes_json TEXT,
    gave_up_at INTEGER
  )`)
  yield* sql.unsafe(`INSERT INTO usine_write_backs_next
      (id, run_id, transition_seq, phase, created_at, tries, next_at, done_at, last_error)
    SELECT id, run_id, transition_seq, phase, created_at, tries, next_at, done_at, last_error FROM usine_write_backs`)
  yield* sql.unsafe("DROP TABLE usine_write_backs")
  yield* sql.unsafe("ALTER TABLE usine_write_backs_next RENAME TO usine_write_backs")
  yield* sql.unsafe("CREATE INDEX usine_write_backs_due ON usine_write_backs (next_at) WHERE done_at IS NULL")
  yield* sql.unsafe("CREATE INDEX usine_write_backs_run ON usine_write_backs (run_id, id)")
})
