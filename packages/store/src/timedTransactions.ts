import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect, Option } from "effect"
import type { LedgerWrites } from "./LedgerWrites"

/**
 * The client with `withTransaction` timed for `writes`: the outermost transaction only (a nested one is a savepoint
 * of it), measured on the `Clock`, failed and rolled back ones included. Everything else is the client itself.
 */
export const timedTransactions = (sql: SqlClient.SqlClient, writes: LedgerWrites["Type"]): SqlClient.SqlClient => {
  const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
      Option.isSome(outer)
        ? sql.withTransaction(effect)
        : Effect.flatMap(Clock.currentTimeNanos, (start) =>
            sql.withTransaction(effect).pipe(
              Effect.ensuring(Effect.flatMap(Clock.currentTimeNanos, (end) => Effect.sync(() => writes.observe(Number(end - start) / 1e9))))
            )
          )
    )
  return new Proxy(sql, {
    get: (target, key, receiver) => (key === "withTransaction" ? withTransaction : Reflect.get(target, key, receiver))
  })
}
