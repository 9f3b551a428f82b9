import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const OLD_STATES = "'Running', 'Succeeded'"
const NEW_STATES = "'Running', 'Reviewing', 'Succeeded'"
const OLD_OPEN = "('Pending', 'Waiting', 'Queued', 'Running')"
const NEW_OPEN = "('Pending', 'Waiting', 'Queued', 'Running', 'Reviewing')"

/**
 * The pull-request gate (ADR 0063): the Run state `Reviewing`, which SQLite's CHECK on `usine_runs.state` and the
 * one-open-Run index must know, and the held patch and the review on the held Attempt. A CHECK cannot be altered:
 * `usine_runs` is rebuilt from its own stored definition, its rows copied out and back, with foreign keys deferred
 * to the migration's commit (the copy back satisfies every row that refers to a Run again).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const table = yield* sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'usine_runs'`
  const indexes = yield* sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usine_runs' AND sql IS NOT NULL`
  const definition = table[0]?.sql ?? ""
  if (!definition.includes(OLD_STATES)) return yield* Effect.dieMessage("usine_runs has an unexpected state CHECK")
  yield* sql.unsafe("PRAGMA defer_foreign_keys = ON")
  yield* sql.unsafe("CREATE TEMP TABLE usine_runs_copy AS SELECT * FROM usine_runs")
  yield* sql.unsafe("DROP TABLE usine_runs")
  yield* sql.unsafe(definition.replace(OLD_STATES, NEW_STATES))
  yield* sql.unsafe("INSERT INTO usine_runs SELECT * FROM usine_runs_copy")
  yield* sql.unsafe("DROP TABLE usine_runs_copy")
  for (const index of indexes) yield* sql.unsafe(index.sql.replace(OLD_OPEN, NEW_OPEN))
  // The held Attempt's unified diff (cut at a bound, `patch_cut` = 1 then) and the operator's answer at the gate.
  yield* sql.unsafe("ALTER TABLE usine_attempts ADD COLUMN patch TEXT")
  yield* sql.unsafe("ALTER TABLE usine_attempts ADD COLUMN patch_cut INTEGER NOT NULL DEFAULT 0")
  yield* sql.unsafe("ALTER TABLE usine_attempts ADD COLUMN review_json TEXT")
})
