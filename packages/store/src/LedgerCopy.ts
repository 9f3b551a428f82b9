import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import { Context, Data, Effect, Stream } from "effect"

/** The copy cannot go on: the two ledgers' schemas differ, the target is not empty, or a table's figures differ. */
class LedgerCopyFailed extends Data.TaggedError("LedgerCopyFailed")<{
  readonly table: string
  readonly reason: string
}> {
  override get message() {
    return `${this.table}: ${this.reason}`
  }
}

/** One table copied: its rows, and the digest of its rows as each engine reads them back. */
export interface TableCopied {
  readonly table: string
  readonly rows: number
  readonly digest: string
}

/** The most parameters one PostgreSQL statement takes is 65,535; a batch stays well under it. */
const PARAMETERS_PER_BATCH = 30_000
/** Rows read from SQLite at a time. */
const PAGE = 5_000
const MOD = 1n << 256n

/**
 * An order-free digest of a table: the sum, modulo 2^256, of each row's SHA-256 over its values in column order. The
 * engines order text differently; the sum does not care, and (unlike an XOR) two equal rows do not cancel.
 */
class TableDigest {
  private sum = 0n
  rows = 0
  add(values: ReadonlyArray<unknown>): void {
    const hash = createHash("sha256").update(JSON.stringify(values)).digest("hex")
    this.sum = (this.sum + BigInt(`0x${hash}`)) % MOD
    this.rows++
  }
  get digest(): string {
    return this.sum.toString(16).padStart(64, "0")
  }
}

/** The ledger's tables on PostgreSQL, parents before children (its foreign keys), leadership and migrations left out. */
const tablesInOrder = (pg: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const tables = (yield* pg<{ name: string }>`
      SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND tablename LIKE 'usine\\_%'
        AND tablename <> 'usine_leadership' AND tablename NOT LIKE 'usine\\_migrations%'
      ORDER BY tablename
    `).map((row) => row.name)
    const edges = yield* pg<{ child: string; parent: string }>`
      SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.relname <> p.relname
    `
    const ordered: Array<string> = []
    const visit = (table: string, path: ReadonlyArray<string>): void => {
      if (ordered.includes(table) || path.includes(table)) return
      for (const edge of edges) if (edge.child === table) visit(edge.parent, [...path, table])
      ordered.push(table)
    }
    for (const table of tables) visit(table, [])
    return ordered
  })

/** A table's columns on each engine; PostgreSQL's explicit `rowid` is SQLite's implicit one (ADR 0099). */
const columnsOf = (sqlite: SqlClient.SqlClient, pg: SqlClient.SqlClient, table: string) =>
  Effect.gen(function*() {
    const target = (yield* pg<{ name: string }>`
      SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position
    `).map((row) => row.name)
    const source = (yield* sqlite<{ name: string }>`SELECT name FROM pragma_table_info(${table})`).map((row) => row.name)
    const onlyTarget = target.filter((name) => name !== "rowid" && !source.includes(name))
    const onlySource = source.filter((name) => !target.includes(name))
    if (source.length === 0) return yield* new LedgerCopyFailed({ table, reason: "absent from the SQLite ledger" })
    if (onlyTarget.length > 0 || onlySource.length > 0) {
      return yield* new LedgerCopyFailed({
        table,
        reason: `the engines' columns differ (only in SQLite: ${onlySource.join(", ") || "none"}; ` +
          `only in PostgreSQL: ${onlyTarget.join(", ") || "none"}); this usine's migrations do not match each other`
      })
    }
    return target
  })

const quoted = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`

/**
 * Any client's statement runs on the connection of the transaction open in its fiber, whichever client opened it:
 * SQLite's reads during PostgreSQL's copy transaction must not be sent to PostgreSQL.
 */
const outsideTransaction = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.mapInputContext(effect, (context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context))

/** Reads a SQLite table a page at a time in rowid order, `names` in that order for each row. */
const sqliteRows = (sqlite: SqlClient.SqlClient, table: string, names: ReadonlyArray<string>, each: (values: ReadonlyArray<ReadonlyArray<unknown>>) => Effect.Effect<void, SqlError>) =>
  Effect.gen(function*() {
    const select = names.map((name) => (name === "rowid" ? "rowid" : quoted(name))).join(", ")
    let after = Number.MIN_SAFE_INTEGER
    while (true) {
      const page = yield* sqlite.unsafe<Record<string, unknown>>(
        `SELECT rowid AS "__rowid", ${select} FROM ${quoted(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
        [after]
      ).pipe(outsideTransaction)
      if (page.length === 0) return
      after = page[page.length - 1]!["__rowid"] as number
      yield* each(page.map((row) => names.map((name) => row[name] ?? null)))
    }
  })

/** Both ledgers' tables, in copy order, with their columns; fails when the schemas differ. */
const matchedTables = (sqlite: SqlClient.SqlClient, pg: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const tables = yield* tablesInOrder(pg)
    const matched: Array<{ readonly table: string; readonly names: ReadonlyArray<string> }> = []
    for (const table of tables) matched.push({ table, names: yield* columnsOf(sqlite, pg, table) })
    return matched
  })

/**
 * Reads every table of both ledgers and compares row counts and digests; fails naming the first table that differs.
 * Run after a copy, and on its own (`usine ledger migrate --verify`) whenever one wants to know.
 */
export const compareLedgers = (
  sqlite: SqlClient.SqlClient,
  pg: SqlClient.SqlClient,
  onTable: (copied: TableCopied) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<ReadonlyArray<TableCopied>, LedgerCopyFailed | SqlError> =>
  Effect.gen(function*() {
    const compared: Array<TableCopied> = []
    for (const { names, table } of yield* matchedTables(sqlite, pg)) {
      const source = new TableDigest()
      yield* sqliteRows(sqlite, table, names, (rows) => Effect.sync(() => rows.forEach((values) => source.add(values))))
      const target = new TableDigest()
      yield* Stream.runForEach(
        pg.unsafe<Record<string, unknown>>(`SELECT ${names.map(quoted).join(", ")} FROM ${quoted(table)}`).stream,
        (row) => Effect.sync(() => target.add(names.map((name) => row[name] ?? null)))
      )
      if (target.rows !== source.rows || target.digest !== source.digest) {
        return yield* new LedgerCopyFailed({
          table,
          reason: `PostgreSQL holds ${target.rows} rows (digest ${target.digest.slice(0, 12)}), ` +
            `SQLite ${source.rows} (digest ${source.digest.slice(0, 12)})`
        })
      }
      const same = { table, rows: target.rows, digest: target.digest }
      compared.push(same)
      yield* onTable(same)
    }
    return compared
  })

/**
 * Copies every table of a SQLite ledger into an empty PostgreSQL ledger in one PostgreSQL transaction (a failed
 * copy leaves it empty), sets its identity sequences past the copied ids, then analyzes the tables for the
 * planner. Both ledgers must be at this usine's migrations, and the SQLite one not in use (its lock held by the caller).
 */
export const copyLedger = (
  sqlite: SqlClient.SqlClient,
  pg: SqlClient.SqlClient,
  onTable: (table: string, rows: number) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<void, LedgerCopyFailed | SqlError> =>
  Effect.gen(function*() {
    const tables = yield* matchedTables(sqlite, pg)
    for (const { table } of tables) {
      const [held] = yield* pg.unsafe<{ n: number }>(`SELECT count(*) AS n FROM ${quoted(table)}`)
      if ((held?.n ?? 0) > 0) {
        return yield* new LedgerCopyFailed({ table, reason: `the PostgreSQL ledger already holds ${held!.n} rows: copy only into an empty ledger` })
      }
    }
    yield* pg.withTransaction(Effect.gen(function*() {
      for (const { names, table } of tables) {
        const batch = Math.max(1, Math.floor(PARAMETERS_PER_BATCH / names.length))
        let rowsCopied = 0
        yield* sqliteRows(sqlite, table, names, (rows) =>
          Effect.gen(function*() {
            for (let at = 0; at < rows.length; at += batch) {
              const slice = rows.slice(at, at + batch)
              const placeholders = slice.map((_, r) => `(${names.map((__, c) => `$${r * names.length + c + 1}`).join(", ")})`)
              yield* pg.unsafe(`INSERT INTO ${quoted(table)} (${names.map(quoted).join(", ")}) VALUES ${placeholders.join(", ")}`, slice.flat())
            }
            rowsCopied += rows.length
          }))
        yield* onTable(table, rowsCopied)
      }
      // An identity column goes on after the highest copied id, as SQLite's AUTOINCREMENT and rowid would.
      const identities = yield* pg<{ table: string; column: string }>`
        SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
        WHERE table_schema = current_schema() AND is_identity = 'YES'
      `
      for (const { column, table } of identities) {
        if (!tables.some((t) => t.table === table)) continue
        yield* pg.unsafe(
          `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quoted(column)}) FROM ${quoted(table)}), 0) + 1, false)`,
          [table, column]
        )
      }
    }))
    // The planner's statistics, as after any bulk load, rather than whatever autovacuum has sampled by the first
    // Board page. (It did not bring Needs you on a copied ledger of 100,000 Runs under 100 ms: bench/RESULTS.md.)
    yield* pg.unsafe(`ANALYZE ${tables.map(({ table }) => quoted(table)).join(", ")}`)
  })
