import { existsSync } from "node:fs"
import { Data, Effect } from "effect"
import { migrations } from "@usine/store/Sql"
import { SqliteDatabase } from "@usine/store/SqliteDatabase"

/** A migration as the ledger's `usine_migrations` table and the store's list name it: `0016_acting_login`. */
interface Migration {
  readonly id: number
  readonly name: string
}

/** Where a ledger stands against the migrations this usine knows. */
export type LedgerMigrations = Data.TaggedEnum<{
  /** No file yet: `usine up` creates it and applies every migration. */
  NoLedger: { readonly known: number }
  /** Every migration this usine knows is applied, and none other. */
  Current: { readonly latest: string }
  /** Older than this usine: `usine up` applies `pending` at its start (the store's migrator does). */
  Behind: { readonly latest: string | undefined; readonly pending: ReadonlyArray<string> }
  /** A newer usine wrote it: `unknown` are migrations this version has never heard of. */
  Ahead: { readonly unknown: ReadonlyArray<string> }
}>
export const LedgerMigrations = Data.taggedEnum<LedgerMigrations>()

/** The ledger file exists but its migrations could not be read. */
class LedgerUnreadable extends Data.TaggedError("LedgerUnreadable")<{ readonly file: string; readonly reason: string }> {
  override get message() {
    return `${this.file}: cannot read its migrations: ${this.reason}`
  }
}

const label = ({ id, name }: Migration) => `${String(id).padStart(4, "0")}_${name}`

/**
 * Compares the ledger's applied migrations with the known ones. The migrator runs the known migrations numbered
 * above the latest applied one, so any applied migration it does not know means a newer usine migrated the file.
 */
const compareMigrations = (applied: ReadonlyArray<Migration>, known: ReadonlyArray<Migration>): LedgerMigrations => {
  const knownIds = new Set(known.map((m) => m.id))
  const unknown = applied.filter((m) => !knownIds.has(m.id))
  if (unknown.length > 0) return LedgerMigrations.Ahead({ unknown: unknown.map(label) })
  const latest = applied.reduce<Migration | undefined>((top, m) => (top === undefined || m.id > top.id ? m : top), undefined)
  const pending = known.filter((m) => m.id > (latest?.id ?? 0))
  return pending.length > 0
    ? LedgerMigrations.Behind({ latest: latest === undefined ? undefined : label(latest), pending: pending.map(label) })
    : LedgerMigrations.Current({ latest: latest === undefined ? "none" : label(latest) })
}

/** The migrations this usine applies, in order. */
export const knownMigrations: Effect.Effect<ReadonlyArray<Migration>> = migrations.pipe(
  Effect.map((resolved) => resolved.map(([id, name]) => ({ id, name }))),
  Effect.orDie
)

/** The migrations applied to a ledger file, read on a query-only connection beside any running daemon (WAL). */
const appliedMigrations = (file: string) =>
  Effect.acquireUseRelease(
    Effect.try({
      try: () => SqliteDatabase.open(file, { fileMustExist: true, timeout: 5_000 }),
      catch: (error) => new LedgerUnreadable({ file, reason: String(error) })
    }),
    (db) =>
      Effect.try({
        try: () => {
          db.pragma("query_only = ON")
          const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usine_migrations'").get()
          if (table === undefined) return []
          return db.prepare("SELECT migration_id AS id, name FROM usine_migrations ORDER BY migration_id").all() as ReadonlyArray<Migration>
        },
        catch: (error) => new LedgerUnreadable({ file, reason: String(error) })
      }),
    (db) => Effect.sync(() => db.close())
  )

/** Where the ledger at `file` stands against this usine's migrations; no file is `NoLedger`, and nothing is created. */
export const ledgerMigrations = Effect.fn("ledgerMigrations")(function* (file: string) {
  const known = yield* knownMigrations
  if (!existsSync(file)) return LedgerMigrations.NoLedger({ known: known.length })
  return compareMigrations(yield* appliedMigrations(file), known)
})
