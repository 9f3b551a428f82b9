import { createRequire } from "node:module"
import { BUSY_TIMEOUT_MS } from "@usine/store/Sql"

/** What the benches use of a better-sqlite3 statement (the package ships no types). */
export interface BareStatement {
  run(...params: ReadonlyArray<unknown>): { readonly changes: number }
  get(...params: ReadonlyArray<unknown>): unknown
  all(...params: ReadonlyArray<unknown>): ReadonlyArray<unknown>
}

/** What the benches use of a better-sqlite3 connection. */
export interface BareSqlite {
  prepare(sql: string): BareStatement
  exec(sql: string): void
  pragma(pragma: string, options?: { readonly simple: boolean }): unknown
  transaction<A extends ReadonlyArray<unknown>>(fn: (...args: A) => void): (...args: A) => void
  close(): void
}

const Database = createRequire(import.meta.url)("better-sqlite3") as new (filename: string) => BareSqlite

/** A raw connection with the PRAGMAs the ledger's client runs (`Sql.ts` and SqliteClient): the physical limit. */
export const openLikeLedger = (filename: string): BareSqlite => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  db.pragma("foreign_keys = ON")
  db.pragma("synchronous = NORMAL")
  return db
}

/** A raw connection for bulk loading: no journal, no fsync. Only for seeding a file nobody else has open. */
export const openForBulkLoad = (filename: string): BareSqlite => {
  const db = new Database(filename)
  db.pragma("journal_mode = DELETE")
  db.pragma("synchronous = OFF")
  db.pragma("cache_size = -262144")
  db.pragma("foreign_keys = OFF")
  return db
}
