import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { ledgerPort } from "./ledgerPort"
import { BrakeStore } from "./BrakeStore"
import { makeHoldQueries } from "./SqlBrakeStore/holdQueries"
import { makeProgressQueries } from "./SqlBrakeStore/progressQueries"
import { makeUsageQueries } from "./SqlBrakeStore/usageQueries"

/** The BrakeStore on the SQLite ledger (migration 0004); needs `Sql.layer` (or `Sql.layerUnlocked`) below it. */
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return ledgerPort(BrakeStore, {
    ...makeUsageQueries(sql),
    ...makeProgressQueries(sql),
    ...makeHoldQueries(sql)
  })
})

export const layer: Layer.Layer<BrakeStore, never, SqlClient.SqlClient> = Layer.effect(BrakeStore, make)
