import * as Reactivity from "@effect/experimental/Reactivity"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import Pg from "pg"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { LedgerConnection } from "./LedgerConnection"
import ledger0001 from "./migrations-pg/0001_ledger"
import leadership0002 from "./migrations-pg/0002_leadership"
import audit0003 from "./migrations-pg/0003_audit"
import leadershipKeyShare0004 from "./migrations-pg/0004_leadership_key_share"

/** PostgreSQL's migrations, numbered on their own; never edit one that has shipped, add the next number. */
const migrations = Migrator.fromRecord({
  "0001_ledger": ledger0001,
  "0002_leadership": leadership0002,
  "0003_audit": audit0003,
  "0004_leadership_key_share": leadershipKeyShare0004
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
export interface PgLedgerAddress {
  readonly url: Redacted.Redacted<string>
  readonly password?: Redacted.Redacted<string> | undefined
  /**
   * This process's node name in a shared ledger (ADR 0109), sent as the connection's `application_name`: the fence
   * on every table lets only the leading node's connections write. At most 63 bytes, PostgreSQL's limit.
   */
  readonly node?: string | undefined
}

/**
 * A few connections. The ledger's transactions still run one at a time (each takes the write lock first, ADR 0106,
 * as it must with several processes), reads need no lock, and an interrupted query is cancelled through another
 * connection (`pg_cancel_backend`, @effect/sql-pg): with one, that cancel waited 5 s for a connection that was busy
 * with the very query it cancels (ADR 0109).
 */
const CONNECTIONS = 4

/** The key of the ledger's write lock, a transaction-level advisory lock: `usine` in ASCII. */
const LEDGER_WRITE_LOCK = 0x7573696e65

/**
 * Every transaction takes the ledger's write lock first, as SQLite's `BEGIN IMMEDIATE` does (ADR 0106): whatever
 * number of connections or processes write one ledger, their transactions run one at a time, and each statement
 * (READ COMMITTED) sees every transaction committed before it. One simple-protocol round trip.
 */
const BEGIN = `BEGIN; SELECT pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`

export type PgLayerError = SqlError | Migrator.MigrationError

/**
 * The ledger on PostgreSQL (`ledger: postgres://…`): the same `SqlClient` the stores are built on, its migrations
 * applied, and no `LedgerConnection` (the claim's synchronous fast path is SQLite's; the claim takes the client's
 * path, as it does on `:memory:`). The connection closes with the layer.
 */
export const layer = (address: PgLedgerAddress): Layer.Layer<SqlClient.SqlClient | LedgerConnection, PgLayerError> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const pg = yield* PgClient.make({
        url: address.url,
        password: address.password,
        maxConnections: CONNECTIONS,
        applicationName: address.node ?? "usine",
        types
      }).pipe(Effect.provide(Reactivity.layer))
      // The ledger's client over pg's pooled connection, built as the SQLite ledger's is (`SqlClient.make`), so its
      // transactions begin with the write lock.
      const client = yield* SqlClient.make({
        acquirer: pg.reserve,
        transactionAcquirer: pg.reserve,
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"]],
        beginTransaction: BEGIN
      }).pipe(Effect.provide(Reactivity.layer))
      yield* Migrator.make({})({ loader: migrations, table: "usine_migrations" }).pipe(
        Effect.provideService(SqlClient.SqlClient, client)
      )
      return Context.make(SqlClient.SqlClient, client).pipe(
        Context.add(LedgerConnection, Option.none())
      )
    })
  )
