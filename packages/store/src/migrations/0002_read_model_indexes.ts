import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // The Runs page: newest first, keyset on (received_at, id), under each filter it offers.
  `CREATE INDEX usine_runs_received ON usine_runs (received_at, id)`,
  `CREATE INDEX usine_runs_loop_received ON usine_runs (loop, received_at, id)`,
  `CREATE INDEX usine_runs_repository_received ON usine_runs (repository COLLATE NOCASE, received_at, id)`,
  `CREATE INDEX usine_runs_item_received ON usine_runs (item_key, received_at, id)`,
  `CREATE INDEX usine_runs_state_received ON usine_runs (state, received_at, id)`,
  // Needs you: failed Runs, most recently failed first.
  `CREATE INDEX usine_runs_failed_updated ON usine_runs (updated_at, id) WHERE state = 'Failed'`,
  // The Loops page counts Runs per Loop and state from the index alone.
  `CREATE INDEX usine_runs_loop_state ON usine_runs (loop, state)`,
  // The live pages' change mark.
  `CREATE INDEX usine_runs_updated ON usine_runs (updated_at)`,
  // Usage totals: the newest usage row of each Attempt.
  `CREATE INDEX usine_transcript_usage ON usine_transcript_rows (attempt_id, seq) WHERE usage_json IS NOT NULL`
]

/** Indexes for the Board's read model, so its pages stay fast on a ledger of 100,000 Runs. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
