import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // How far the notifier has read the append-only logs it turns into notifications, by log.
  `CREATE TABLE usine_notify_cursors (
    log TEXT PRIMARY KEY NOT NULL,
    seq INTEGER NOT NULL
  )`,
  // One notification per endpoint, event and subject (a Run, a refused config): written once, sent until delivered.
  `CREATE TABLE usine_notifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint TEXT NOT NULL,
    event TEXT NOT NULL,
    subject TEXT NOT NULL,
    body_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL,
    delivered_at INTEGER,
    last_error TEXT,
    UNIQUE (endpoint, event, subject)
  )`,
  `CREATE INDEX usine_notifications_due ON usine_notifications (next_at) WHERE delivered_at IS NULL`
]

/** The notification outbox (ADR 0061). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
