import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, Option } from "effect"
import { join } from "node:path"
import { LedgerConnection } from "@usine/store/LedgerConnection"
import * as Sql from "@usine/store/Sql"
import { tempDir } from "./fixtures/testLedger"

const count = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: number }>`SELECT count(*) AS n FROM usine_loop_runtime`.pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie))

describe("LedgerConnection (ADR 0080)", () => {
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
})
