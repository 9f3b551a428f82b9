import { createRequire } from "node:module"

/**
 * A raw better-sqlite3 connection beside the ledger's client (the lock file, the duplicate check's query-only
 * reader): just what the store uses of it, since better-sqlite3 ships no types of its own.
 */
export interface SqliteDatabase {
  exec(sql: string): void
  prepare(sql: string): { get(...params: ReadonlyArray<unknown>): unknown; all(...params: ReadonlyArray<unknown>): unknown }
  pragma(pragma: string): unknown
  close(): void
}

const Database = createRequire(import.meta.url)("better-sqlite3") as new (
  path: string,
  options: { readonly timeout?: number; readonly fileMustExist?: boolean }
) => SqliteDatabase

export const SqliteDatabase = {
  open: (path: string, options: { readonly timeout?: number; readonly fileMustExist?: boolean }): SqliteDatabase =>
    new Database(path, options),
  /** SQLite's "another connection holds the lock": `SQLITE_BUSY` and its extended codes (`SQLITE_BUSY_SNAPSHOT`, ...). */
  isBusy: (error: unknown): boolean => {
    const code = (error as { readonly code?: unknown } | null | undefined)?.code
    return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"))
  }
}
