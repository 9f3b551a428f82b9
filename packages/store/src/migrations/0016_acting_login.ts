import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The GitHub login of the signed-in person behind an operator's transition or note (ADR 0098). Rows written before,
 * and those of scripts with the Board token, keep NULL: they read as the `operator` they always said.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE usine_transitions ADD COLUMN login TEXT`)
  yield* sql.unsafe(`ALTER TABLE usine_run_notes ADD COLUMN login TEXT`)
})
