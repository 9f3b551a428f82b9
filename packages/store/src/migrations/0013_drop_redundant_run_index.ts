import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * `usine_runs_state (state, received_at)` is a prefix of `usine_runs_state_received (state, received_at, id)`: every
 * plan that used it uses the longer one the same way (ADR 0080), and each claim wrote both.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`DROP INDEX IF EXISTS usine_runs_state`)
})
