import { assert, describe, it } from "@effect/vitest"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import * as LedgerClient from "@usine/store/LedgerClient"
import * as Sql from "@usine/store/Sql"
import { tempDir } from "./fixtures/testLedger"

describe("migration 0010 (the pull-request gate, SQLite only)", () => {
  it.scoped("rebuilds usine_runs on a ledger in use: rows, references, indexes and the one-open-Run rule kept; Reviewing allowed", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      const all = yield* Sql.migrations
      const before = all.filter(([id]) => id < 10)
      // A ledger of the previous release, with a Run, its Attempt, its transitions and its approval.
      yield* Effect.scoped(Effect.gen(function* () {
        const { sql } = yield* LedgerClient.make(file, { observe: () => {} })
        yield* sql.unsafe("PRAGMA foreign_keys = ON")
        yield* Migrator.make({})({ loader: Effect.succeed(before), table: "usine_migrations" }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        yield* sql.unsafe(`INSERT INTO usine_events (id, loop, item_key, repository, number, generation, submission_json, received_at, recorded_at, status)
          VALUES ('e1', 'fix', 'k1', 'o/r', 1, 0, '{}', 1, 1, 'claimed')`)
        yield* sql.unsafe(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation, state, state_json, version, task, agent,
          approval_required, received_at, created_at, updated_at) VALUES ('r1', 'e1', 'fix', 'k1', 'o/r', 1, 0, 'Running', '{"_tag":"Running"}', 3, 't', 'a', 0, 1, 1, 1)`)
        yield* sql.unsafe(`INSERT INTO usine_attempts (id, run_id, step, number, started_at) VALUES ('r1/main/1', 'r1', 'main', 1, 1)`)
        yield* sql.unsafe(`INSERT INTO usine_transitions (run_id, to_state, actor, reason, at) VALUES ('r1', 'Running', 'engine', 'x', 1)`)
      }))
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layer(file)))
      const runs = yield* sql<{ id: string; state: string; version: number }>`SELECT id, state, version FROM usine_runs`
      assert.deepStrictEqual(runs.map((r) => [r.id, r.state, r.version]), [["r1", "Running", 3]])
      assert.deepStrictEqual(yield* sql.unsafe("PRAGMA foreign_key_check"), [])
      yield* sql`UPDATE usine_runs SET state = 'Reviewing' WHERE id = 'r1'`
      yield* sql`UPDATE usine_attempts SET patch = '+x', patch_cut = 0 WHERE id = 'r1/main/1'`
      const indexes = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usine_runs' AND sql IS NOT NULL ORDER BY name`
      assert.includeMembers(indexes.map((i) => i.name), ["usine_runs_one_open", "usine_runs_failed_updated", "usine_runs_state_received"])
      assert.notInclude(indexes.map((i) => i.name), "usine_runs_state", "dropped by 0013: a prefix of usine_runs_state_received")
      // A Reviewing Run is open: a second open Run of the same Loop and Item is refused by the ledger itself.
      yield* sql.unsafe(`INSERT INTO usine_events (id, loop, item_key, repository, number, generation, submission_json, received_at, recorded_at, status)
        VALUES ('e2', 'fix', 'k1', 'o/r', 1, 0, '{}', 2, 2, 'claimed')`)
      const second = yield* Effect.flip(sql.unsafe(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation, state, state_json,
        version, task, agent, approval_required, received_at, created_at, updated_at) VALUES ('r2', 'e2', 'fix', 'k1', 'o/r', 1, 0, 'Pending', '{"_tag":"Pending"}', 1, 't', 'a', 0, 2, 2, 2)`))
      assert.include(String(second.cause), "UNIQUE")
      const orphan = yield* Effect.flip(sql.unsafe(`INSERT INTO usine_attempts (id, run_id, step, number, started_at) VALUES ('x/main/1', 'nope', 'main', 1, 1)`))
      assert.include(String(orphan.cause), "FOREIGN KEY", "references to usine_runs are still enforced")
    }))
})
