import { assert, describe, it } from "@effect/vitest"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, TestClock } from "effect"
import { join } from "node:path"
import { AuditLog, type AuditRecord } from "@usine/store/AuditLog"
import * as LedgerClient from "@usine/store/LedgerClient"
import * as Sql from "@usine/store/Sql"
import * as SqlAuditLog from "@usine/store/SqlAuditLog"
import { describeEngines } from "@usine/testkit/ledgerEngines"
import { tempDir } from "./fixtures/testLedger"

const record = (fields: Partial<AuditRecord> & Pick<AuditRecord, "action">): AuditRecord => ({
  actor: "operator",
  login: undefined,
  outcome: "done",
  repository: undefined,
  loop: undefined,
  runId: undefined,
  itemKey: undefined,
  detail: undefined,
  result: undefined,
  ...fields
})

/** Every entry under `filter`, page after page of `limit`, as `action:login` newest first. */
const walk = (audit: AuditLog["Type"], filter: Omit<Parameters<AuditLog["Type"]["page"]>[0], "limit" | "before">, limit: number) =>
  Effect.gen(function* () {
    const seen: Array<string> = []
    let before: string | undefined
    let pages = 0
    do {
      const page = yield* audit.page({ ...filter, limit, before })
      seen.push(...page.entries.map((e) => `${e.action}:${e.actor === "agent" ? "agent" : e.login ?? "operator"}`))
      before = page.next
      pages += 1
    } while (before !== undefined && pages < 100)
    return seen
  })

describeEngines("AuditLog", (engine) => {
  // Built in each test: a layer shared by `it.layer` gave the PostgreSQL half two databases.
  const ledger = Effect.map(Layer.build(SqlAuditLog.layer.pipe(Layer.provideMerge(engine.sql))), (context) => ({
    audit: Context.get(context, AuditLog),
    sql: Context.get(context, SqlClient.SqlClient)
  }))
  describe("on the ledger", () => {
    it.scoped("appends actions at the Clock's time and pages them newest first, by person, repository, action, Loop, time and readable repositories", () =>
      Effect.gen(function* () {
        const { audit } = yield* ledger
        const acts: ReadonlyArray<AuditRecord> = [
          record({ action: "approve", login: "dana", repository: "acme/widgets", loop: "fix", runId: "r1" }),
          record({ action: "intervene", login: "dana", repository: "acme/widgets", loop: "fix", runId: "r1", detail: "use the other API", result: "queued: in the inbox" }),
          record({ action: "approve", login: "tom", outcome: "refused", repository: "acme/widgets", loop: "fix", runId: "r2", result: "needs write" }),
          record({ action: "cancel", repository: "acme/gadgets", loop: "docs", runId: "r3" }),
          record({ action: "pause", login: "tom", loop: "docs" }),
          record({ action: "cancel", login: "tom", outcome: "unchanged", repository: "acme/gadgets", loop: "docs", runId: "r3" }),
          record({ actor: "agent", action: "push", repository: "acme/gadgets", loop: "docs", runId: "r4", detail: "usine/r4" })
        ]
        for (const act of acts) {
          yield* TestClock.adjust(1_000)
          yield* audit.append(act)
        }
        const all = yield* audit.page({ limit: 10 })
        assert.deepStrictEqual(all.entries.map((e) => [e.at, e.action, e.login]), [
          [7_000, "push", undefined], [6_000, "cancel", "tom"], [5_000, "pause", "tom"], [4_000, "cancel", undefined], [3_000, "approve", "tom"],
          [2_000, "intervene", "dana"], [1_000, "approve", "dana"]
        ])
        assert.isUndefined(all.next)
        assert.deepStrictEqual(all.entries[5], { id: all.entries[5]!.id, at: 2_000, ...acts[1]! })

        assert.deepStrictEqual(yield* walk(audit, {}, 4), ["push:agent", "cancel:tom", "pause:tom", "cancel:operator", "approve:tom", "intervene:dana", "approve:dana"])
        assert.deepStrictEqual(yield* walk(audit, { login: "tom" }, 1), ["cancel:tom", "pause:tom", "approve:tom"])
        assert.deepStrictEqual(yield* walk(audit, { login: null }, 1), ["cancel:operator"])
        assert.deepStrictEqual(yield* walk(audit, { repository: "acme/widgets" }, 2), ["approve:tom", "intervene:dana", "approve:dana"])
        assert.deepStrictEqual(yield* walk(audit, { action: "approve" }, 10), ["approve:tom", "approve:dana"])
        assert.deepStrictEqual(yield* walk(audit, { loop: "docs", login: "tom" }, 10), ["cancel:tom", "pause:tom"])
        assert.deepStrictEqual(yield* walk(audit, { since: 2_000, until: 4_000 }, 10), ["approve:tom", "intervene:dana"])
        assert.deepStrictEqual(yield* walk(audit, { readable: ["acme/gadgets"] }, 10), ["push:agent", "cancel:tom", "pause:tom", "cancel:operator"])
        assert.deepStrictEqual(yield* walk(audit, { readable: [] }, 10), ["pause:tom"])
        assert.deepStrictEqual((yield* audit.page({ limit: 10, before: "not a cursor" })).entries.length, 7)
      }))

    it.scoped("is append-only", () =>
      Effect.gen(function* () {
        const { audit, sql } = yield* ledger
        yield* audit.append(record({ action: "retry", login: "dana" }))
        const update = yield* Effect.either(sql`UPDATE usine_audit SET login = 'mallory'`)
        const remove = yield* Effect.either(sql`DELETE FROM usine_audit`)
        assert.include(String(update._tag === "Left" && update.left.cause), "append-only")
        assert.include(String(remove._tag === "Left" && remove.left.cause), "append-only")
        assert.deepStrictEqual((yield* audit.page({ limit: 10, action: "retry" })).entries.map((e) => e.login), ["dana"])
      }))
  })
})

describe("AuditLog on a large SQLite ledger", () => {
  it.scoped("answers a filtered page from its index among 200,000 entries", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      const context = yield* Layer.build(SqlAuditLog.layer.pipe(Layer.provideMerge(Sql.layer(file))))
      const sql = Context.get(context, SqlClient.SqlClient)
      const audit = Context.get(context, AuditLog)
      yield* sql.withTransaction(sql.unsafe(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
        INSERT INTO usine_audit (at, actor, login, action, outcome, repository, loop, run_id)
        SELECT i * 10, 'operator', 'person' || (i % 50), CASE WHEN i % 7 = 0 THEN 'approve' ELSE 'retry' END, 'done',
          'acme/repo' || (i % 40), 'loop' || (i % 20), 'run' || i FROM n`))
      const queries = [
        { limit: 50 },
        { limit: 50, login: "person7" },
        { limit: 50, repository: "acme/repo3", since: 1_000_000 },
        { limit: 50, action: "approve", until: 1_500_000 },
        { limit: 50, loop: "loop4" }
      ]
      for (const filter of queries) {
        const first = yield* audit.page(filter)
        assert.strictEqual(first.entries.length, 50)
        const second = yield* audit.page({ ...filter, before: first.next })
        assert.strictEqual(second.entries.length, 50)
        assert.isTrue(second.entries[0]!.at < first.entries[49]!.at, "the next page continues where the first ended")
        const times: Array<number> = []
        for (let i = 0; i < 7; i++) {
          const started = performance.now()
          yield* audit.page({ ...filter, before: first.next })
          times.push(performance.now() - started)
        }
        const median = times.sort((a, b) => a - b)[3]!
        assert.isBelow(median, 20, `${JSON.stringify(filter)}: median ${median.toFixed(1)} ms`)
      }
      // The plan walks an index of the filter, never the whole table nor a sort of it.
      const plan = yield* sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT * FROM usine_audit
        WHERE login = 'person7' AND (at, id) < (100000, 9999) ORDER BY at DESC, id DESC LIMIT 51`
      assert.deepStrictEqual(plan.map((p) => p.detail), ["SEARCH usine_audit USING INDEX usine_audit_login (login=? AND at<?)"])
    }), 60_000)
})

describe("migration 0017 (the audit)", () => {
  it.scoped("copies the operators' transitions so far as actions, old rows without a login", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "ledger.sqlite")
      const before = (yield* Sql.migrations).filter(([id]) => id < 17)
      yield* Effect.scoped(Effect.gen(function* () {
        const { sql } = yield* LedgerClient.make(file, { observe: () => {} })
        yield* Migrator.make({})({ loader: Effect.succeed(before), table: "usine_migrations" }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        yield* sql.unsafe(`INSERT INTO usine_events (id, loop, item_key, repository, number, generation, submission_json, received_at, recorded_at, status)
          VALUES ('e1', 'fix', 'k1', 'acme/widgets', 1, 0, '{}', 1, 1, 'claimed')`)
        yield* sql.unsafe(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation, state, state_json, version, task, agent,
          approval_required, received_at, created_at, updated_at) VALUES ('r1', 'e1', 'fix', 'k1', 'acme/widgets', 1, 0, 'Canceled', '{"_tag":"Canceled"}', 5, 't', 'a', 1, 1, 1, 1)`)
        yield* sql.unsafe(`INSERT INTO usine_transitions (run_id, from_state, to_state, actor, reason, at, login) VALUES
          ('r1', NULL, 'Pending', 'trigger', 'opened', 10, NULL),
          ('r1', 'Waiting', 'Queued', 'operator', 'approved', 20, NULL),
          ('r1', 'Failed', 'Queued', 'operator', 'edited and retried', 30, 'dana'),
          ('r1', 'Reviewing', 'Queued', 'operator', 'changes requested on Attempt 2', 40, 'tom'),
          ('r1', 'Running', 'Canceled', 'operator', 'canceled by the operator', 50, 'dana')`)
      }))
      const context = yield* Layer.build(SqlAuditLog.layer.pipe(Layer.provideMerge(Sql.layer(file))))
      const page = yield* Context.get(context, AuditLog).page({ limit: 10 })
      assert.isTrue(page.entries.every((e) => e.actor === "operator"))
      assert.deepStrictEqual(page.entries.map((e) => [e.at, e.action, e.login, e.repository, e.loop, e.runId, e.result]), [
        [50, "cancel", "dana", "acme/widgets", "fix", "r1", "canceled by the operator"],
        [40, "requestChanges", "tom", "acme/widgets", "fix", "r1", "changes requested on Attempt 2"],
        [30, "editAndRetry", "dana", "acme/widgets", "fix", "r1", "edited and retried"],
        [20, "approve", undefined, "acme/widgets", "fix", "r1", "approved"]
      ])
    }))
})
