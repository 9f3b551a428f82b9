import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // What a Run's transition log cannot say: why it waited (a brake's hold and its release) and what an operator edited.
  // `after_seq` is the Run's newest transition when the note was written, so a note sorts between the right two.
  `CREATE TABLE usine_run_notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    kind TEXT NOT NULL CHECK (kind IN ('Held', 'Released', 'Edited')),
    actor TEXT NOT NULL CHECK (actor IN ('engine', 'operator', 'trigger')),
    summary TEXT NOT NULL,
    body_json TEXT NOT NULL,
    after_seq INTEGER,
    at INTEGER NOT NULL
  )`,
  `CREATE INDEX usine_run_notes_run ON usine_run_notes (run_id, id)`,
  `CREATE TRIGGER usine_run_notes_no_update BEFORE UPDATE ON usine_run_notes
    BEGIN SELECT RAISE(ABORT, 'usine_run_notes is append-only'); END`,
  `CREATE TRIGGER usine_run_notes_no_delete BEFORE DELETE ON usine_run_notes
    BEGIN SELECT RAISE(ABORT, 'usine_run_notes is append-only'); END`
]

/** Run notes: an append-only log of a Run's brake holds, their releases, and operator edits (ADR 0049). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
