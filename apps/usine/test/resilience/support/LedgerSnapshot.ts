import { existsSync } from "node:fs"
import { contentHash } from "@usine/core/content/contentHash"
import { contextFields } from "@usine/triggers/contextFields"
import { type ItemNode, itemFieldsOf, kindOfNode } from "@usine/triggers/ItemFields"
import { createRequire } from "node:module"

/** Just what the suite needs of better-sqlite3, which ships no types of its own. */
interface Statement {
  all(...params: ReadonlyArray<unknown>): Array<Record<string, unknown>>
}
interface Database {
  exec(sql: string): void
  prepare(sql: string): Statement
  pragma(source: string, options: { readonly simple: true }): unknown
  close(): void
}

// The ledger's own driver, loaded from the store package that owns it: the app has no SQLite dependency of its own.
const storeRequire = createRequire(createRequire(import.meta.url).resolve("@usine/store/LedgerLock"))
const Sqlite = storeRequire("better-sqlite3") as new (
  path: string,
  options: { readonly readonly: boolean; readonly fileMustExist: boolean; readonly timeout: number }
) => Database

export interface EventRow {
  readonly id: string
  readonly loop: string
  readonly itemKey: string
  readonly number: number | null
  readonly generation: number
  readonly contentHash: string | null
  readonly status: string
}

export interface RunRow {
  readonly id: string
  readonly eventId: string
  readonly loop: string
  readonly itemKey: string
  readonly number: number | null
  readonly state: string
}

export interface AttemptRow {
  readonly id: string
  readonly runId: string
  readonly number: number
  readonly outcome: { readonly _tag: string; readonly failure?: { readonly _tag: string; readonly reason?: string }; readonly result?: { readonly pullRequestNumber?: number; readonly branch?: string } } | undefined
}

export interface TransitionRow {
  readonly runId: string
  readonly from: string | null
  readonly to: string
}

export interface ProjectionRow {
  readonly itemKey: string
  readonly number: number
  /** The hash of the raw payload slice. */
  readonly contentHash: string
  /**
   * The hash of the Item as a Loop sees it, its Events' content hash (ADR 0055), for a world whose every author is
   * trusted, as the resilience suite's is.
   */
  readonly viewHash: string
}

/** What a Loop's Event hashes, from the stored payload: every comment and review kept (all authors trusted). */
const viewHashOf = (payload: ItemNode): string => contentHash(contextFields(itemFieldsOf(kindOfNode(payload), payload), () => true))

/** The ledger as one read-only connection saw it at one moment. */
export interface LedgerSnapshot {
  readonly quickCheck: string
  readonly events: ReadonlyArray<EventRow>
  readonly runs: ReadonlyArray<RunRow>
  readonly attempts: ReadonlyArray<AttemptRow>
  readonly transitions: ReadonlyArray<TransitionRow>
  readonly projections: ReadonlyArray<ProjectionRow>
  readonly transcriptRows: number
}

export const emptySnapshot: LedgerSnapshot = {
  quickCheck: "ok",
  events: [],
  runs: [],
  attempts: [],
  transitions: [],
  projections: [],
  transcriptRows: 0
}

const str = (value: unknown): string => String(value)
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

/**
 * Reads the whole ledger through a read-only connection, in one read transaction so the rows agree with each other.
 * The daemon may be running (WAL lets a reader in beside the writer) or killed a moment ago.
 */
export const readLedger = (file: string): LedgerSnapshot => {
  // A ledger that is not there is not an empty one: every invariant would hold on it.
  if (!existsSync(file)) throw new Error(`no ledger at ${file}: the daemon never opened it`)
  const db = new Sqlite(file, { readonly: true, fileMustExist: true, timeout: 5_000 })
  try {
    const rows = (sql: string) => db.prepare(sql).all()
    db.exec("BEGIN")
    const quickCheck = str(db.pragma("quick_check", { simple: true }))
    const tables = new Set(rows("SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => str(r["name"])))
    if (!tables.has("usine_runs")) return { ...emptySnapshot, quickCheck }
    const snapshot: LedgerSnapshot = {
      quickCheck,
      events: rows("SELECT id, loop, item_key, number, generation, content_hash, status FROM usine_events").map((r) => ({
        id: str(r["id"]),
        loop: str(r["loop"]),
        itemKey: str(r["item_key"]),
        number: numOrNull(r["number"]),
        generation: Number(r["generation"]),
        contentHash: strOrNull(r["content_hash"]),
        status: str(r["status"])
      })),
      runs: rows("SELECT id, event_id, loop, item_key, number, state FROM usine_runs").map((r) => ({
        id: str(r["id"]),
        eventId: str(r["event_id"]),
        loop: str(r["loop"]),
        itemKey: str(r["item_key"]),
        number: numOrNull(r["number"]),
        state: str(r["state"])
      })),
      attempts: rows("SELECT id, run_id, number, outcome_json FROM usine_attempts").map((r) => ({
        id: str(r["id"]),
        runId: str(r["run_id"]),
        number: Number(r["number"]),
        outcome: r["outcome_json"] === null ? undefined : JSON.parse(str(r["outcome_json"]))
      })),
      transitions: rows("SELECT run_id, from_state, to_state FROM usine_transitions ORDER BY seq").map((r) => ({
        runId: str(r["run_id"]),
        from: strOrNull(r["from_state"]),
        to: str(r["to_state"])
      })),
      projections: rows("SELECT item_key, number, content_hash, payload_json FROM usine_item_projections").map((r) => ({
        itemKey: str(r["item_key"]),
        number: Number(r["number"]),
        contentHash: str(r["content_hash"]),
        viewHash: viewHashOf(JSON.parse(str(r["payload_json"])) as ItemNode)
      })),
      transcriptRows: Number(rows("SELECT count(*) AS n FROM usine_transcript_rows")[0]?.["n"] ?? 0)
    }
    return snapshot
  } finally {
    db.close()
  }
}

/** One query on a read-only connection, for the suite's frequent small looks at a live ledger. */
export const queryLedger = (file: string, sql: string, ...params: ReadonlyArray<unknown>): Array<Record<string, unknown>> => {
  if (!existsSync(file)) return []
  const db = new Sqlite(file, { readonly: true, fileMustExist: true, timeout: 5_000 })
  try {
    return db.prepare(sql).all(...params)
  } catch {
    // A ledger whose migrations have not run yet has none of the tables.
    return []
  } finally {
    db.close()
  }
}
