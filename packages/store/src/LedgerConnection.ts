import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, Duration, Effect, Option } from "effect"
import type { LedgerWrites } from "./LedgerWrites"
import { isBusy, retryWhileBusy } from "./retryWhileBusy"

/** The pause before the second try of a transaction that found the ledger busy: the schedule's first delay. */
const BUSY_FIRST_PAUSE = Duration.millis(25)

/** A prepared better-sqlite3 statement: what the claim's fast path uses of it. */
export interface PreparedStatement {
  run(...params: ReadonlyArray<unknown>): { readonly changes: number }
  get(...params: ReadonlyArray<unknown>): unknown
}

/** The better-sqlite3 connection behind the ledger's client. */
interface RawConnection {
  readonly inTransaction: boolean
  prepare(sql: string): PreparedStatement
}

export interface LedgerConnectionShape {
  /** Prepares a statement on the client's own connection; run it only inside `transact`. */
  readonly prepare: (sql: string) => PreparedStatement
  /**
   * Runs `body` synchronously between BEGIN IMMEDIATE and COMMIT on the client's connection, holding the client's
   * connection (its semaphore) throughout; `body` answering none rolls back. Retried while `SQLITE_BUSY` and timed
   * for `LedgerWrites`, as the client's own transactions are. Inside a client transaction it is none at once.
   */
  readonly transact: <A>(body: () => Option.Option<A>) => Effect.Effect<Option.Option<A>, SqlError>
  /** The ledger's file, for a reader of its own beside the client (the duplicate check's query-only connection). */
  readonly filename: string
}

/** The ledger client's own connection, for plain prepared calls in one transaction (ADR 0080); none without it. */
export class LedgerConnection extends Context.Tag("usine/LedgerConnection")<
  LedgerConnection,
  Option.Option<LedgerConnectionShape>
>() {}

/**
 * `transact` over `db`, the connection behind the ledger's client; `withConnection` holds it as a client transaction does.
 *
 * The body, BEGIN and COMMIT run in one synchronous step, so no other fiber's statement can come between them. The
 * client's semaphore only keeps its transactions, which span several steps, from interleaving. Each of those starts
 * with BEGIN, so a connection that is not in a transaction has none of them open: the step runs at once, without
 * reserving the connection (ADR 0080). A connection in a transaction waits for it to end through the client's
 * reservation, unless that transaction is the caller's own: then it is none at once.
 */
export const makeLedgerConnection = (
  filename: string,
  db: RawConnection,
  withConnection: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  writes: LedgerWrites["Type"]
): LedgerConnectionShape => {
  const begin = db.prepare("BEGIN IMMEDIATE")
  const commit = db.prepare("COMMIT")
  const rollback = db.prepare("ROLLBACK")
  const step = <A>(clock: Clock.Clock, body: () => Option.Option<A>) =>
    Effect.try({
      try: () => {
        const start = clock.unsafeCurrentTimeNanos()
        try {
          begin.run()
          const result = body()
          ;(Option.isSome(result) ? commit : rollback).run()
          return result
        } catch (error) {
          if (db.inTransaction) rollback.run()
          throw error
        } finally {
          writes.observe(Number(clock.unsafeCurrentTimeNanos() - start) / 1e9)
        }
      },
      catch: (cause) => new SqlError({ cause, message: "Failed to run the ledger transaction" })
    })
  const reserved = <A>(clock: Clock.Clock, body: () => Option.Option<A>) =>
    withConnection(step(clock, body))
  const once = <A>(body: () => Option.Option<A>): Effect.Effect<Option.Option<A>, SqlError> =>
    Effect.clockWith((clock) =>
      !db.inTransaction
        ? step(clock, body)
        : Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
          Option.isSome(outer) ? Effect.succeed(Option.none<A>()) : reserved(clock, body)))
  return {
    filename,
    prepare: (source) => db.prepare(source),
    // The retry's machinery is built only once SQLite has answered busy: the common claim never needs it.
    transact: <A>(body: () => Option.Option<A>) =>
      Effect.catchIf(once(body), isBusy, () => retryWhileBusy(Effect.delay(once(body), BUSY_FIRST_PAUSE)))
  }
}
