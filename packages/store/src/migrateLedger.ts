import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, type Redacted } from "effect"
import { compareLedgers, copyLedger, type TableCopied } from "./LedgerCopy"
import * as PgSql from "./PgSql"
import * as Sql from "./Sql"

interface MigrateLedger {
  /** The SQLite ledger file: its lock is taken first, so a running daemon makes this fail, naming its process. */
  readonly from: string
  readonly to: { readonly url: Redacted.Redacted<string>; readonly password?: Redacted.Redacted<string> | undefined }
  /** Copy nothing: only compare. */
  readonly verify: boolean
  readonly onCopied: (table: string, rows: number) => Effect.Effect<void>
}

/** `usine ledger migrate`: both ledgers opened (and migrated to this usine's schema), copied unless `verify`, compared. */
export const migrateLedger = (options: MigrateLedger): Effect.Effect<ReadonlyArray<TableCopied>, { readonly message: string }> =>
  Effect.gen(function*() {
    const sqlite = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(Sql.layer(options.from)))
    const pg = yield* Effect.provide(SqlClient.SqlClient, yield* Layer.build(PgSql.layer(options.to)))
    if (!options.verify) yield* copyLedger(sqlite, pg, options.onCopied)
    return yield* compareLedgers(sqlite, pg)
  }).pipe(
    Effect.scoped,
    // A SQL error's own message is generic ("Failed to execute statement"): the database's reason is what helps.
    Effect.mapError((error) =>
      error._tag === "SqlError" && error.cause instanceof Error ? { message: `${error.message}: ${error.cause.message}` } : error
    )
  )
