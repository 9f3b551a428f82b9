import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import * as Sql from "@usine/store/Sql"
import { tempDir } from "./fixtures/testLedger"

const pragma = (sql: SqlClient.SqlClient, name: string) =>
  Effect.map(sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`), (rows) => Object.values(rows[0] ?? {})[0])

describe("Sql (SQLite only)", () => {
  it.scoped("opens the ledger in WAL mode with foreign keys, a busy timeout and every migration", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layer(file)))
      assert.strictEqual(yield* pragma(sql, "journal_mode"), "wal")
      assert.strictEqual(yield* pragma(sql, "foreign_keys"), 1)
      assert.strictEqual(yield* pragma(sql, "busy_timeout"), Sql.BUSY_TIMEOUT_MS)
      const migrations = yield* sql<{ migration_id: number; name: string }>`SELECT * FROM usine_migrations`
      const known = yield* Sql.migrations
      assert.deepStrictEqual(
        migrations.map((m) => [m.migration_id, m.name]),
        known.map(([id, name]) => [id, name])
      )
      assert.deepStrictEqual(migrations[0] && [migrations[0].migration_id, migrations[0].name], [1, "ledger"])
      const tables = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'
          AND name LIKE 'usine_%' ORDER BY name`
      assert.deepStrictEqual(tables.map((t) => t.name), [
        "usine_agent_holds",
        "usine_approvals",
        "usine_attempt_usage",
        "usine_attempts",
        "usine_audit",
        "usine_cap_raises",
        "usine_cycle_resets",
        "usine_events",
        "usine_ignored_events",
        "usine_item_comments",
        "usine_item_cycle_budgets",
        "usine_item_progress",
        "usine_item_projections",
        "usine_loop_pull_requests",
        "usine_loop_runtime",
        "usine_migrations",
        "usine_notifications",
        "usine_notify_cursors",
        "usine_poll_cursors",
        "usine_run_holds",
        "usine_run_notes",
        "usine_runs",
        "usine_transcript_rows",
        "usine_transitions",
        "usine_usage_days",
        "usine_write_back_cursor",
        "usine_write_backs"
      ])
    }))

  it.scoped("reopening a migrated ledger runs no migration twice", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      yield* Effect.scoped(Layer.build(Sql.layerUnlocked(file)))
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layerUnlocked(file)))
      const rows = yield* sql<{ n: number }>`SELECT count(*) AS n FROM usine_migrations`
      assert.strictEqual(rows[0]?.n, (yield* Sql.migrations).length)
    }))

  it.scoped("the transition log refuses updates and deletes", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layerUnlocked(file)))
      yield* sql`INSERT INTO usine_events (id, loop, item_key, repository, generation, submission_json, received_at,
          recorded_at, status) VALUES ('e', 'l', 'i', 'r', 0, '{}', 0, 0, 'claimed')`
      yield* sql`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, generation, state, state_json,
          version, task, agent, approval_required, received_at, created_at, updated_at)
          VALUES ('r', 'e', 'l', 'i', 'r', 0, 'Pending', '{"_tag":"Pending"}', 1, 't', 'a', 0, 0, 0, 0)`
      yield* sql`INSERT INTO usine_transitions (run_id, to_state, actor, reason, at)
          VALUES ('r', 'Pending', 'trigger', 'opened', 0)`
      const update = yield* Effect.flip(sql`UPDATE usine_transitions SET reason = 'rewritten'`)
      const remove = yield* Effect.flip(sql`DELETE FROM usine_transitions`)
      assert.include(String(update.cause), "append-only")
      assert.include(String(remove.cause), "append-only")
      const orphan = yield* Effect.flip(
        sql`INSERT INTO usine_transitions (run_id, to_state, actor, reason, at) VALUES ('nope', 'Pending', 'engine', 'x', 0)`
      )
      assert.include(String(orphan.cause), "FOREIGN KEY")
    }))
})
