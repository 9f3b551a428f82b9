import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { LedgerWrites } from "@usine/store/LedgerWrites"
import * as Sql from "@usine/store/Sql"
import { tempDir } from "./fixtures/testLedger"

describe("LedgerWrites (the SQLite client times its transactions; SQLite only)", () => {
  it.scoped("times each outermost transaction of the ledger, a rolled-back one too, and a nested one not apart", () =>
    Effect.gen(function* () {
      const observed: Array<number> = []
      const file = join(yield* tempDir, "ledger.sqlite")
      const context = yield* Layer.build(Sql.layer(file)).pipe(Effect.provideService(LedgerWrites, { observe: (s) => observed.push(s) }))
      const sql = yield* Effect.provide(SqlClient.SqlClient, context)
      assert.isAtLeast(observed.length, 1, "the migrations ran in a timed transaction")
      observed.length = 0
      yield* sql`CREATE TABLE t (n INTEGER)`
      assert.strictEqual(observed.length, 0, "a statement outside a transaction is not one")
      yield* sql.withTransaction(Effect.zipRight(sql`INSERT INTO t VALUES (1)`, sql.withTransaction(sql`INSERT INTO t VALUES (2)`)))
      assert.strictEqual(observed.length, 1, "the nested transaction is part of the outer one")
      yield* Effect.either(sql.withTransaction(Effect.zipRight(sql`INSERT INTO t VALUES (3)`, Effect.fail("refused"))))
      assert.strictEqual(observed.length, 2, "a rolled-back transaction is timed too")
      assert.deepStrictEqual(yield* sql<{ n: number }>`SELECT n FROM t ORDER BY n`, [{ n: 1 }, { n: 2 }])
      for (const seconds of observed) assert.isTrue(seconds >= 0 && seconds < 5, String(seconds))
    }))

  it.scoped("a ledger opened without the hook times nothing and works the same", () =>
    Effect.gen(function* () {
      const sql = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layerUnlocked(join(yield* tempDir, "ledger.sqlite"))))
      assert.deepStrictEqual(yield* sql.withTransaction(sql<{ one: number }>`SELECT 1 AS one`), [{ one: 1 }])
    }))
})
