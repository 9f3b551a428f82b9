import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { Context, Data, Effect, Layer, type Scope } from "effect"
import { SqliteDatabase } from "./SqliteDatabase"

/** Another process (or this one) holds the ledger; opening it again is refused. */
export class LedgerLocked extends Data.TaggedError("LedgerLocked")<{
  readonly ledger: string
  readonly lockFile: string
  /** The holder's pid as it recorded it; absent when it had not written it yet. */
  readonly pid: number | undefined
  readonly host: string | undefined
}> {
  override get message() {
    const holder = this.pid === undefined ? "another process" : `process ${this.pid} on ${this.host ?? "?"}`
    return `the ledger ${this.ledger} is already open in ${holder} (lock ${this.lockFile}); ` +
      `only one usine process may use a ledger file: stop the other one first`
  }
}

/** The lock this process holds on a ledger file for as long as its scope lives. */
export class LedgerLock extends Context.Tag("usine/LedgerLock")<
  LedgerLock,
  { readonly ledger: string; readonly lockFile: string; readonly pid: number }
>() {}

export const lockFileOf = (ledger: string): string => `${ledger}.lock`
export const holderFileOf = (ledger: string): string => `${ledger}.lock.holder`


const readHolder = (ledger: string): { readonly pid: number | undefined; readonly host: string | undefined } => {
  try {
    const value = JSON.parse(readFileSync(holderFileOf(ledger), "utf8")) as { pid?: unknown; host?: unknown }
    return {
      pid: typeof value.pid === "number" ? value.pid : undefined,
      host: typeof value.host === "string" ? value.host : undefined
    }
  } catch {
    return { pid: undefined, host: undefined }
  }
}

const writeHolder = (ledger: string): void => {
  const temp = `${holderFileOf(ledger)}.${process.pid}`
  writeFileSync(temp, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }))
  renameSync(temp, holderFileOf(ledger))
}

/**
 * The exclusion is an SQLite EXCLUSIVE lock on `<ledger>.lock`, held by an open transaction: the kernel drops
 * it when the process dies, so a crash never leaves a lock behind. The pid beside it only names the holder.
 */
const lockSync = (ledger: string): SqliteDatabase | LedgerLocked => {
  const lockFile = lockFileOf(ledger)
  const db = SqliteDatabase.open(lockFile, { timeout: 0 })
  try {
    db.exec("BEGIN EXCLUSIVE")
  } catch (error) {
    db.close()
    if (!SqliteDatabase.isBusy(error)) throw error
    return new LedgerLocked({ ledger, lockFile, ...readHolder(ledger) })
  }
  writeHolder(ledger)
  return db
}

const unlockSync = (ledger: string, db: SqliteDatabase): void => {
  if (readHolder(ledger).pid === process.pid) rmSync(holderFileOf(ledger), { force: true })
  db.close()
}

/** Takes the ledger's lock for the scope, or fails with `LedgerLocked` naming the process that holds it. */
export const acquireLedgerLock = (
  ledger: string
): Effect.Effect<LedgerLock["Type"], LedgerLocked, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const locked = lockSync(ledger)
      return locked instanceof LedgerLocked ? Effect.fail(locked) : Effect.succeed(locked)
    }),
    (db) => Effect.sync(() => unlockSync(ledger, db))
  ).pipe(Effect.as({ ledger, lockFile: lockFileOf(ledger), pid: process.pid }))

export const layer = (ledger: string): Layer.Layer<LedgerLock, LedgerLocked> =>
  Layer.scoped(LedgerLock, acquireLedgerLock(ledger))
