import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, Scope } from "effect"
import { freshPgDatabase, postgresMissing } from "@usine/testkit/PgCluster"
import { makeLedgerLeadership } from "../src/LedgerLeadership"
import * as PgSql from "../src/PgSql"

const skip = postgresMissing !== undefined && process.env["CI"] !== "true"
const LEASE = Duration.seconds(2)
const RETRY = Duration.millis(100)

/** A node's own connection to the shared ledger, named `node`, in its own scope so a test can drop it. */
const connect = (url: string, node: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const sql = yield* Layer.buildWithScope(PgSql.layer({ url: Redacted.make(url), node }), scope).pipe(
      Effect.map((context) => Effect.provide(SqlClient.SqlClient, context)),
      Effect.flatten,
      Effect.orDie
    )
    const leadership = yield* makeLedgerLeadership({ node, lease: LEASE, retry: RETRY }).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    return { sql, leadership, scope }
  })

/** A write to one of the ledger's tables, as any store write is. */
const write = (sql: SqlClient.SqlClient, loop: string) =>
  sql`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES (${loop}, 0, 1)`.pipe(Effect.asVoid)

/** What the ledger answered a refused write: its SQLSTATE and message; "written" when it was not refused. */
const refusal = <A>(effect: Effect.Effect<A, SqlError>) =>
  Effect.match(effect, {
    onSuccess: () => "written",
    onFailure: (error) => {
      const cause = error.cause as { readonly code?: string; readonly message?: string }
      return `${cause.code}: ${cause.message}`
    }
  })

describe.skipIf(skip)("the ledger's leadership on PostgreSQL (ADR 0109)", () => {
  it.live("with no leader nothing is fenced: one process, tests and `ledger migrate` write freely", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      yield* write(a.sql, "free")
      const leader = yield* a.leadership.current
      assert.isTrue(Option.isNone(leader))
    }).pipe(Effect.scoped), 20_000)

  it.live("one node leads; the other waits, and its writes are refused by the ledger itself", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const b = yield* connect(url, "node-b")
      const lease = yield* a.leadership.lead
      assert.strictEqual(lease.epoch, 1)
      const waiting = yield* Effect.fork(Effect.scoped(b.leadership.lead))
      yield* Effect.sleep("600 millis")
      assert.isNull(yield* Fiber.poll(waiting).pipe(Effect.map(Option.getOrNull)))
      yield* write(a.sql, "by-leader")
      const refused = yield* refusal(write(b.sql, "by-standby"))
      assert.include(refused, "UF001: usine: this node (node-b) does not lead the ledger: node-a does, epoch 1")
      const leader = yield* b.leadership.current
      assert.strictEqual(Option.getOrThrow(leader).node, "node-a")
      yield* lease.check
      yield* Fiber.interrupt(waiting)
    }).pipe(Effect.scoped), 20_000)

  it.live("a leader that stops renewing is replaced within a lease, and its later writes are refused", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const b = yield* connect(url, "node-b")
      const leaseScope = yield* Scope.make()
      const first = yield* a.leadership.lead.pipe(Scope.extend(leaseScope))
      // node-a's renewals stop as a paused process's would: its fibers are gone, its connection stays open.
      const renewalsStopped = Date.now()
      yield* Scope.close(leaseScope, Exit.void).pipe(
        Effect.zipRight(a.sql`UPDATE usine_leadership SET expires_at = clock_timestamp() + interval '2 seconds'`)
      )
      const second = yield* b.leadership.lead
      const tookMs = Date.now() - renewalsStopped
      assert.strictEqual(second.epoch, first.epoch + 1)
      assert.isAtMost(tookMs, Duration.toMillis(LEASE) + 1_000, `took over after ${tookMs} ms`)
      assert.include(yield* refusal(write(a.sql, "deposed")), "this node (node-a) does not lead the ledger: node-b does, epoch 2")
      yield* write(b.sql, "new-leader")
      assert.include(String(yield* Effect.flip(first.check)), "no longer leads")
    }).pipe(Effect.scoped), 20_000)

  it.live("a leader whose renewals fail finds itself deposed by its own clock, half a lease before a takeover", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const b = yield* connect(url, "node-b")
      const lease = yield* a.leadership.lead
      // The ledger goes away for node-a: its connection is closed under it, so every renewal fails.
      yield* Scope.close(a.scope, Exit.void)
      const lostAt = Date.now()
      const lost = yield* lease.lost
      const localMs = Date.now() - lostAt
      assert.include(lost.reason, "not renewed for")
      assert.isAtMost(localMs, Duration.toMillis(LEASE) / 2 + 500)
      const second = yield* b.leadership.lead
      const takeoverMs = Date.now() - lostAt
      assert.isAbove(takeoverMs, localMs, "node-a stopped acting before node-b could lead")
      assert.strictEqual(second.epoch, 2)
    }).pipe(Effect.scoped), 20_000)

  it.live("a leader's renewals do not wait for its writes in flight: a slow write does not depose a healthy leader", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const lease = yield* a.leadership.lead
      const before = yield* a.leadership.current
      const inTransaction = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The write holds the leadership row FOR KEY SHARE for two leases; the renewals (FOR NO KEY UPDATE) go by it.
      const writing = yield* Effect.fork(a.sql.withTransaction(
        write(a.sql, "slow").pipe(
          Effect.zipRight(Deferred.succeed(inTransaction, undefined)),
          Effect.zipRight(Deferred.await(release))
        )
      ))
      yield* Deferred.await(inTransaction)
      yield* Effect.sleep(Duration.times(LEASE, 2))
      const lostYet = yield* Effect.either(Effect.timeout(lease.lost, "10 millis"))
      assert.isTrue(lostYet._tag === "Left", `node-a judged itself deposed: ${JSON.stringify(lostYet)}`)
      yield* lease.check
      const after = yield* a.leadership.current
      assert.isAbove(Option.getOrThrow(after).expiresAt, Option.getOrThrow(before).expiresAt + Duration.toMillis(LEASE), "renewed meanwhile")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writing)
    }).pipe(Effect.scoped), 20_000)

  it.live("a takeover waits for the leader's write in flight, so none commits after it", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const b = yield* connect(url, "node-b")
      const leaseScope = yield* Scope.make()
      yield* Scope.extend(a.leadership.lead, leaseScope)
      const inTransaction = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const writing = yield* Effect.fork(a.sql.withTransaction(
        write(a.sql, "in-flight").pipe(
          Effect.zipRight(Deferred.succeed(inTransaction, undefined)),
          Effect.zipRight(Deferred.await(release))
        )
      ))
      yield* Deferred.await(inTransaction)
      // node-a's lease ends (handed back) while its write is in flight: node-b's takeover raises the epoch, a key
      // column, so it waits for the write's FOR KEY SHARE on the leadership row.
      yield* Scope.close(leaseScope, Exit.void)
      const taking = yield* Effect.fork(Effect.scoped(Effect.map(b.leadership.lead, (l) => l.epoch)))
      yield* Effect.sleep(Duration.sum(LEASE, "500 millis"))
      assert.isTrue(Option.isNone(yield* Fiber.poll(taking)), "the takeover waited for the write in flight")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writing)
      assert.strictEqual(yield* Fiber.join(taking), 2)
      const rows = yield* b.sql<{ loop: string }>`SELECT loop FROM usine_loop_runtime`
      assert.deepStrictEqual(rows.map((r) => r.loop), ["in-flight"])
      assert.include(yield* refusal(write(a.sql, "after")), "does not lead the ledger: node-b does, epoch 2")
    }).pipe(Effect.scoped), 20_000)

  it.live("a paused leader's open transaction is ended by the server, so it cannot hold a takeover back", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const b = yield* connect(url, "node-b")
      const leaseScope = yield* Scope.make()
      yield* Scope.extend(a.leadership.lead, leaseScope)
      const inTransaction = yield* Deferred.make<void>()
      const never = yield* Deferred.make<void>()
      const stuck = yield* Effect.fork(Effect.exit(a.sql.withTransaction(
        write(a.sql, "never-committed").pipe(
          Effect.zipRight(Deferred.succeed(inTransaction, undefined)),
          Effect.zipRight(Deferred.await(never))
        )
      )))
      yield* Deferred.await(inTransaction)
      // The leader stops renewing (as a paused process does) while its transaction sits idle.
      yield* Scope.close(leaseScope, Exit.void)
      const started = Date.now()
      const second = yield* Effect.scoped(b.leadership.lead)
      const tookMs = Date.now() - started
      assert.strictEqual(second.epoch, 2)
      assert.isAtLeast(tookMs, 4_000, "held until the server ended the idle transaction (5 s)")
      assert.isAtMost(tookMs, 8_000)
      const rows = yield* b.sql<{ loop: string }>`SELECT loop FROM usine_loop_runtime`
      assert.deepStrictEqual(rows, [])
      yield* Fiber.interrupt(stuck)
    }).pipe(Effect.scoped), 20_000)

  it.live("every table of the ledger but the leadership row's is fenced", () =>
    Effect.gen(function*() {
      const url = yield* freshPgDatabase
      const a = yield* connect(url, "node-a")
      const unfenced = yield* a.sql<{ name: string }>`
        SELECT t.tablename AS name FROM pg_tables t
        WHERE t.schemaname = current_schema() AND t.tablename LIKE 'usine\\_%'
          AND t.tablename NOT IN ('usine_leadership') AND t.tablename NOT LIKE 'usine\\_migrations%'
          AND NOT EXISTS (
            SELECT 1 FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
            WHERE c.relname = t.tablename AND g.tgname = 'usine_fenced'
          )
      `
      assert.deepStrictEqual(unfenced.map((r) => r.name), [])
      const fenced = yield* a.sql<{ n: number }>`SELECT count(*) AS n FROM pg_trigger WHERE tgname = 'usine_fenced'`
      assert.isAtLeast(fenced[0]!.n, 25)
    }).pipe(Effect.scoped), 20_000)
})
