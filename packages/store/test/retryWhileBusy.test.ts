import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Context, Effect, Exit, Layer, Option } from "effect"
import { join } from "node:path"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as Sql from "@usine/store/Sql"
import { isBusy } from "@usine/store/retryWhileBusy"
import { SqliteDatabase } from "@usine/store/SqliteDatabase"
import { openedRun, submission, tempDir } from "./fixtures/testLedger"
import { runLedgerOf } from "@usine/testkit/runLedger"

/** The stores on a fresh ledger, its connection waiting 20 ms (not 5 s) for a lock, and a second connection to the file. */
const ledgerWithNeighbour = Effect.gen(function* () {
  const file = join(yield* tempDir, "ledger.sqlite")
  const context = yield* Layer.build(SqlRunStore.layer.pipe(Layer.provideMerge(Sql.layerUnlocked(file)), Layer.orDie))
  const sql = Context.get(context, SqlClient.SqlClient)
  yield* sql.unsafe("PRAGMA busy_timeout = 20").pipe(Effect.orDie)
  const other = yield* Effect.acquireRelease(Effect.sync(() => SqliteDatabase.open(file, {})), (db) => Effect.sync(() => db.close()))
  /** Runs one statement on the second connection, synchronously, as a test step between the store's. */
  const neighbour = { exec: (statement: string) => other.exec(statement) }
  return { store: runLedgerOf(context), sql, neighbour }
})

// Every ledger transaction begins with BEGIN IMMEDIATE: the lock is met at its start, which is retried, and its body
// runs once, after the lock went (ADR 0089).
describe("the store retries SQLITE_BUSY, and only that (SQLite only)", () => {
  it.scopedLive("a write waits while another connection holds the write lock, then succeeds", () =>
    Effect.gen(function* () {
      const { store, sql, neighbour } = yield* ledgerWithNeighbour
      neighbour.exec("BEGIN IMMEDIATE")
      const released = yield* Effect.sleep("300 millis").pipe(
        Effect.zipRight(Effect.sync(() => { neighbour.exec("COMMIT"); return Date.now() })),
        Effect.fork
      )
      const run = openedRun(yield* store.recordAndClaim(submission({})))
      const done = Date.now()
      assert.isAtLeast(done, yield* released.await.pipe(Effect.flatten), "the claim committed after the lock went")
      assert.strictEqual((yield* store.getRun(run.id)).state._tag, "Pending")

      let writes = 0
      yield* sql.unsafe("CREATE TABLE probe (n INTEGER)").pipe(Effect.orDie)
      neighbour.exec("BEGIN IMMEDIATE")
      yield* Effect.sleep("200 millis").pipe(Effect.zipRight(Effect.sync(() => neighbour.exec("COMMIT"))), Effect.fork)
      yield* sql.withTransaction(Effect.suspend(() => { writes += 1; return sql`INSERT INTO probe VALUES (${writes})` })).pipe(Effect.orDie)
      assert.strictEqual(writes, 1, "the body ran once: BEGIN IMMEDIATE met the lock, not the body")
      assert.deepStrictEqual(yield* sql<{ n: number }>`SELECT n FROM probe`.pipe(Effect.orDie), [{ n: writes }])
    }), 30_000)

  it.scopedLive("another SQL error is not retried: one attempt, then the error", () =>
    Effect.gen(function* () {
      const { sql } = yield* ledgerWithNeighbour
      let attempts = 0
      const exit = yield* Effect.exit(sql.withTransaction(Effect.suspend(() => { attempts += 1; return sql`INSERT INTO no_such_table VALUES (1)` })))
      assert.strictEqual(attempts, 1)
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Option.getOrThrow(Cause.failureOption(exit.cause))
        assert.instanceOf(error, SqlError)
        assert.isFalse(isBusy(error))
      }
    }))

  it.scopedLive("a lock never released: a bounded number of tries, then the busy error", () =>
    Effect.gen(function* () {
      const { sql, neighbour } = yield* ledgerWithNeighbour
      yield* sql.unsafe("CREATE TABLE probe (n INTEGER)").pipe(Effect.orDie)
      neighbour.exec("BEGIN IMMEDIATE")
      let attempts = 0
      const started = Date.now()
      const exit = yield* Effect.exit(sql.withTransaction(Effect.suspend(() => { attempts += 1; return sql`INSERT INTO probe VALUES (1)` })))
      const waited = Date.now() - started
      neighbour.exec("ROLLBACK")
      assert.strictEqual(attempts, 0, "the body never ran: the transaction never began")
      // Eight retries of BEGIN, 25 ms doubling to at most 1 s apart: 3.6 s of pauses, then the busy error.
      assert.isAtLeast(waited, 3_500)
      assert.isBelow(waited, 15_000)
      assert.isTrue(Exit.isFailure(exit) && Option.exists(Cause.failureOption(exit.cause), isBusy), "the busy error, as a failure")
    }), 30_000)
})
