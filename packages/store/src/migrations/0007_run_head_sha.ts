import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** A pull request Run keeps the head commit its trigger read: the Attempt starts there and pushes over it only. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE usine_runs ADD COLUMN head_sha TEXT`)
})
