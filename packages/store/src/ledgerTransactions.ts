import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect, Option } from "effect"
import type { LedgerWrites } from "./LedgerWrites"
import { retryWhileBusy } from "./retryWhileBusy"

/**
 * The client with `withTransaction` made the ledger's: the outermost transaction (a nested one is a savepoint of it)
 * is run again while SQLite answers `SQLITE_BUSY` (`retryWhileBusy`, the one place the store retries), and each run
 * of it is timed for `writes` on the `Clock`, failed and rolled back ones included. Everything else is the client.
 */
export const ledgerTransactions = (sql: SqlClient.SqlClient, writes: LedgerWrites["Type"]): SqlClient.SqlClient => {
  const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Clock.currentTimeNanos, (start) =>
      sql.withTransaction(effect).pipe(
        Effect.ensuring(Effect.flatMap(Clock.currentTimeNanos, (end) => Effect.sync(() => writes.observe(Number(end - start) / 1e9))))
      )
    )
  const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Option.isSome(outer) ? sql.withTransaction(effect) : retryWhileBusy(timed(effect))
    )
  return new Proxy(sql, {
    get: (target, key, receiver) => (key === "withTransaction" ? withTransaction : Reflect.get(target, key, receiver))
  })
}
