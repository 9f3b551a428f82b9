import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // How far write-back has read the transition log: one row.
  `CREATE TABLE usine_write_back_cursor (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    seq INTEGER NOT NULL
  )`,
  // One write to GitHub per transition that moves an Item's status (a Run started, succeeded or failed):
  // written with the cursor's move, applied until done.
  `CREATE TABLE usine_write_backs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    transition_seq INTEGER NOT NULL UNIQUE,
    phase TEXT NOT NULL CHECK (phase IN ('running', 'succeeded', 'failed')),
    created_at INTEGER NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    done_at INTEGER,
    last_error TEXT
  )`,
  `CREATE INDEX usine_write_backs_due ON usine_write_backs (next_at) WHERE done_at IS NULL`,
  `CREATE INDEX usine_write_backs_run ON usine_write_backs (run_id, id)`,
  // The one comment usine keeps on an Item (`comment: true`), edited in place.
  `CREATE TABLE usine_item_comments (
    repository TEXT NOT NULL,
    number INTEGER NOT NULL,
    comment_id INTEGER NOT NULL,
    PRIMARY KEY (repository, number)
  )`
]

/** Write-back to GitHub (ADR 0065): status labels, the pull request's labels and reviewers, the Item's comment. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
