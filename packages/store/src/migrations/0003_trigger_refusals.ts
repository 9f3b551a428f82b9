import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // Refused triggers are ignored Events whose id starts with `trust-refused:` (@usine/core/trust/refusalEventIdOf);
  // the Board lists them newest first from this index alone.
  `CREATE INDEX usine_ignored_events_refused ON usine_ignored_events (at) WHERE event_id LIKE 'trust-refused:%'`
]

/** Ledger support for trigger trust (ADR 0032): the Board's list of refused triggers. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
