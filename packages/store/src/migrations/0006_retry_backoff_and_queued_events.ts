import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // SQLite cannot change a CHECK in place: the holds table is rebuilt with the automatic retry's backoff as a kind.
  `CREATE TABLE usine_run_holds_next (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES usine_runs (id),
    kind TEXT NOT NULL
      CHECK (kind IN ('AgentQuota', 'DailyCap', 'NoProgress', 'OpenPullRequests', 'RetryBackoff')),
    reason TEXT NOT NULL,
    until INTEGER,
    since INTEGER NOT NULL
  )`,
  `INSERT INTO usine_run_holds_next (run_id, kind, reason, until, since)
    SELECT run_id, kind, reason, until, since FROM usine_run_holds`,
  `DROP TABLE usine_run_holds`,
  `ALTER TABLE usine_run_holds_next RENAME TO usine_run_holds`,
  // Queued Events are few among millions: reconcile finds the pairs whose Run closed without taking them up (ADR 0050).
  `CREATE INDEX usine_events_queued ON usine_events (loop, item_key) WHERE status = 'queued'`
]

/** Automatic retries wait as a Run hold (`RetryBackoff`); queued Events are indexed on their own (ADR 0050). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
