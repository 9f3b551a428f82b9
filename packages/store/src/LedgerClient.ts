import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { createRequire } from "node:module"
import { Clock, Effect, Scope } from "effect"
import type { LedgerWrites } from "./LedgerWrites"
import { isBusy, retryWhileBusy } from "./retryWhileBusy"

/** A prepared better-sqlite3 statement: what the ledger's client uses of it. */
interface LedgerStatement {
  readonly reader: boolean
  run(...params: ReadonlyArray<unknown>): { readonly changes: number }
  get(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): ReadonlyArray<unknown>
  raw(on: boolean): LedgerStatement
}

/** The better-sqlite3 connection the ledger opens and owns. */
interface LedgerDatabase {
  readonly name: string
  readonly inTransaction: boolean
  prepare(sql: string): LedgerStatement
  pragma(source: string): unknown
  close(): void
}

const Database = createRequire(import.meta.url)("better-sqlite3") as new (path: string) => LedgerDatabase

/** How many prepared statements the client keeps: the store's queries are a fixed set, well under this. */
const PREPARED_KEPT = 200

/** Every transaction takes the write lock at its start: no deferred transaction meets `SQLITE_BUSY` half way. */
const BEGIN = "BEGIN IMMEDIATE"
const ROLLBACK = "ROLLBACK"

interface LedgerClient {
  readonly sql: SqlClient.SqlClient
  readonly db: LedgerDatabase
  /** Runs `effect` holding the connection, as a client transaction does, without beginning one. */
  readonly withConnection: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const failed = (cause: unknown, message: string) => new SqlError({ cause, message })

/**
 * The ledger's SQL client over a connection it opens itself (WAL), built with `SqlClient.make` as
 * @effect/sql-sqlite-node builds its own: one connection behind a semaphore. Its transactions are the ledger's: they
 * begin with `BEGIN IMMEDIATE`, which is retried while another process holds the write lock (`retryWhileBusy`, the
 * store's one retry; the body has not run yet, so nothing is run twice), and each is timed for `writes` from the
 * moment it holds the connection to its commit or rollback. Closed with its scope.
 */
export const make = (filename: string, writes: LedgerWrites["Type"]): Effect.Effect<LedgerClient, never, Scope.Scope> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const opened = new Database(filename)
        opened.pragma("journal_mode = WAL")
        return opened
      }),
      (opened) => Effect.sync(() => opened.close())
    )
    const prepared = new Map<string, LedgerStatement>()
    const prepare = (source: string) =>
      Effect.try({
        try: () => {
          const known = prepared.get(source)
          if (known !== undefined) return known
          const statement = db.prepare(source)
          if (prepared.size >= PREPARED_KEPT) prepared.delete(prepared.keys().next().value as string)
          prepared.set(source, statement)
          return statement
        },
        catch: (cause) => failed(cause, "Failed to prepare statement")
      })
    const runStatement = (statement: LedgerStatement, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: (): ReadonlyArray<any> => {
          if (statement.reader) return statement.all(...params)
          const result = statement.run(...params)
          return raw ? (result as unknown as ReadonlyArray<any>) : []
        },
        catch: (cause) => failed(cause, "Failed to execute statement")
      })
    const values = (statement: LedgerStatement, params: ReadonlyArray<unknown>) =>
      Effect.try({
        try: (): ReadonlyArray<ReadonlyArray<unknown>> => {
          if (!statement.reader) return (statement.run(...params), [])
          try {
            return statement.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
          } finally {
            statement.raw(false)
          }
        },
        catch: (cause) => failed(cause, "Failed to execute statement")
      })
    const unprepared = (source: string, params: ReadonlyArray<unknown>) =>
      Effect.flatMap(
        Effect.try({ try: () => db.prepare(source), catch: (cause) => failed(cause, "Failed to prepare statement") }),
        (statement) => runStatement(statement, params, false)
      )
    const connection: Connection = {
      execute: (source, params, transformRows) =>
        Effect.flatMap(prepare(source), (statement) =>
          Effect.map(runStatement(statement, params, false), (rows) => (transformRows ? transformRows(rows) : rows))),
      executeRaw: (source, params) => Effect.flatMap(prepare(source), (statement) => runStatement(statement, params, true)),
      executeValues: (source, params) => Effect.flatMap(prepare(source), (statement) => values(statement, params)),
      executeUnprepared: (source, params, transformRows) => {
        const ran = Effect.map(unprepared(source, params ?? []), (rows) => (transformRows ? transformRows(rows) : rows))
        if (source === BEGIN) return Effect.catchIf(ran, isBusy, () => retryWhileBusy(ran))
        // A transaction whose BEGIN failed (busy past its retries) is rolled back by the client: nothing to undo.
        if (source === ROLLBACK) return Effect.suspend(() => (db.inTransaction ? ran : Effect.succeed([])))
        return ran
      },
      executeStream: () => Effect.dieMessage("the ledger's client does not stream")
    }
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        yield* restore(semaphore.take(1))
        const start = yield* Clock.currentTimeNanos
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(Clock.currentTimeNanos, (end) =>
            Effect.zipRight(Effect.sync(() => writes.observe(Number(end - start) / 1e9)), semaphore.release(1))))
        return connection
      })
    )
    const sql = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      beginTransaction: BEGIN,
      rollback: ROLLBACK
    }).pipe(Effect.provide(Reactivity.layer))
    return { sql, db, withConnection: semaphore.withPermits(1) }
  })
