import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import Pg from "pg"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { LedgerConnection } from "./LedgerConnection"
import ledger0001 from "./migrations-pg/0001_ledger"
import audit0002 from "./migrations-pg/0002_audit"

/** PostgreSQL's migrations, numbered on their own; never edit one that has shipped, add the next number. */
const migrations = Migrator.fromRecord({
  "0001_ledger": ledger0001,
  "0002_audit": audit0002
})

const INT8 = 20
const NUMERIC = 1700

/**
 * The ledger's integers are epoch millis, counts and token totals, all well inside a double: int8 (BIGINT, `count(*)`)
 * and numeric (`sum` of BIGINT) are read as numbers, so the row schemas SQLite's rows decode with decode these too.
 */
const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 || oid === NUMERIC ? (value: string) => Number(value) : Pg.types.getTypeParser(oid, format)) as Pg.CustomTypesConfig["getTypeParser"]
}

/** Where the PostgreSQL ledger is: its URL, and a password read apart from it (`password_file`), both redacted. */
interface PgLedgerAddress {
  readonly url: Redacted.Redacted<string>
  readonly password?: Redacted.Redacted<string> | undefined
}

/**
 * One connection, as SQLite's ledger has: the store's transactions never interleave (a claim reads then writes the
 * Item's open Run, ADR 0099), and a query waits for an open transaction as it does behind SQLite's semaphore.
 */
const CONNECTIONS = 1

type PgLayerError = SqlError | Migrator.MigrationError

/**
 * The ledger on PostgreSQL (`ledger: postgres://…`): the same `SqlClient` the stores are built on, its migrations
 * applied, and no `LedgerConnection` (the claim's synchronous fast path is SQLite's; the claim takes the client's
 * path, as it does on `:memory:`). The connection closes with the layer.
 */
export const layer = (address: PgLedgerAddress): Layer.Layer<SqlClient.SqlClient | LedgerConnection, PgLayerError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const client = yield* PgClient.make({
        url: address.url,
        password: address.password,
        maxConnections: CONNECTIONS,
        applicationName: "usine",
        types
      }).pipe(Effect.provide(Reactivity.layer))
      yield* Migrator.make({})({ loader: migrations, table: "usine_migrations" }).pipe(
        Effect.provideService(SqlClient.SqlClient, client)
      )
      return Context.make(SqlClient.SqlClient, client as SqlClient.SqlClient).pipe(
        Context.add(LedgerConnection, Option.none())
      )
    })
  )
