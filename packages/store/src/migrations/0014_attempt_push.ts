import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The commit and branch an Attempt is about to push, written before the push is sent: a harvest run again after a
 * restart recognises that commit on GitHub as its own push (ADR 0082).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE usine_attempts ADD COLUMN push_branch TEXT`)
  yield* sql.unsafe(`ALTER TABLE usine_attempts ADD COLUMN push_sha TEXT`)
})
