import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Deferred, Effect, Fiber, Layer, Option } from "effect"
import { join } from "node:path"
import { LedgerConnection } from "@usine/store/LedgerConnection"
import * as Sql from "@usine/store/Sql"
import { tempDir } from "./fixtures/testLedger"

const count = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: number }>`SELECT count(*) AS n FROM usine_loop_runtime`.pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie))

describe("LedgerConnection (ADR 0080, SQLite only)", () => {
  it.scoped("is the client's own connection: prepared calls commit in its transaction, none rolls them back", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(Sql.layerUnlocked(join(yield* tempDir, "ledger.sqlite")))
      const connection = Option.getOrThrow(Context.get(context, LedgerConnection))
      const insert = connection.prepare("INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES (?, 0, 1)")
      const kept = yield* connection.transact(() => Option.some(insert.run("kept").changes))
      assert.deepStrictEqual(kept, Option.some(1))
      assert.deepStrictEqual(yield* connection.transact(() => (insert.run("dropped"), Option.none())), Option.none())
      // The client reads what the raw connection committed, and only that: one connection, one ledger.
      assert.strictEqual(yield* Effect.provide(count, context), 1)
      const sql = Context.get(context, SqlClient.SqlClient)
      const inside = yield* sql.withTransaction(connection.transact(() => Option.some("ran")))
      assert.deepStrictEqual(inside, Option.none(), "inside a client transaction it declines")
    }))

  it.scoped("with another fiber's transaction open, waits for its end and is not part of it; with none, runs at once", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(Sql.layerUnlocked(join(yield* tempDir, "ledger.sqlite")))
      const connection = Option.getOrThrow(Context.get(context, LedgerConnection))
      const sql = Context.get(context, SqlClient.SqlClient)
      const insert = connection.prepare("INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES (?, 0, 1)")
      const opened = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const order: Array<string> = []
      // A client transaction that spans several steps (here, a wait) and then rolls back.
      const other = yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES ('rolled back', 0, 1)`
        yield* Deferred.succeed(opened, undefined)
        yield* Deferred.await(release)
        order.push("other ended")
        return yield* Effect.fail("roll back")
      })).pipe(Effect.either, Effect.fork)
      yield* Deferred.await(opened)
      const fast = yield* connection.transact(() => (order.push("fast ran"), Option.some(insert.run("fast").changes))).pipe(Effect.fork)
      yield* Effect.yieldNow()
      assert.deepStrictEqual(order, [], "the fast step waits while the other transaction is open")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(other)
      assert.deepStrictEqual(yield* Fiber.join(fast), Option.some(1))
      assert.deepStrictEqual(order, ["other ended", "fast ran"])
      const loops = yield* sql<{ loop: string }>`SELECT loop FROM usine_loop_runtime ORDER BY loop`.pipe(Effect.orDie)
      assert.deepStrictEqual(loops.map((r) => r.loop), ["fast"], "the fast step committed on its own, outside the rolled-back one")
      assert.deepStrictEqual(yield* connection.transact(() => Option.some(insert.run("at once").changes)), Option.some(1))
    }))
})
