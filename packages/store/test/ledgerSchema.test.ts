import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { describeEngines } from "@usine/testkit/ledgerEngines"

/** SQLite's tables after migrations 0001..0017: PostgreSQL's 0001 and 0002 must create the same ones (ADR 0099). */
const TABLES = [
  "usine_agent_holds", "usine_approvals", "usine_attempt_usage", "usine_attempts", "usine_audit", "usine_cap_raises",
  "usine_cycle_resets", "usine_events", "usine_ignored_events", "usine_item_comments", "usine_item_cycle_budgets",
  "usine_item_progress", "usine_item_projections", "usine_loop_pull_requests", "usine_loop_runtime",
  "usine_notifications", "usine_notify_cursors", "usine_poll_cursors", "usine_run_holds", "usine_run_notes",
  "usine_runs", "usine_transcript_rows", "usine_transitions", "usine_usage_days", "usine_write_back_cursor",
  "usine_write_backs"
]

describeEngines("the ledger's schema", (engine) => {
  it.live("has every table of the ledger, migrations applied", () =>
    Effect.gen(function* () {
      const client = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(engine.sql))
      const rows = yield* client.onDialectOrElse({
        pg: () => client<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
        orElse: () => client<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
      })
      const names = rows.map((row) => row.name).filter((name) => name.startsWith("usine_") && !name.startsWith("usine_migrations")).sort()
      // PostgreSQL adds the leadership of a ledger shared by several daemons (ADR 0109); SQLite has one process.
      assert.deepStrictEqual(names, engine.name === "postgres" ? [...TABLES, "usine_leadership"].sort() : TABLES)
      // Epoch millis past 2^31 round-trip as numbers (BIGINT read as a number on PostgreSQL).
      yield* client`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES ('l', 0, ${1_764_900_000_000})`
      const [row] = yield* client<{ updated_at: number }>`SELECT updated_at FROM usine_loop_runtime`
      assert.strictEqual(row?.updated_at, 1_764_900_000_000)
    }).pipe(Effect.scoped, Effect.orDie))
})
