import type * as SqlClient from "@effect/sql/SqlClient"
import { LedgerConnection } from "../LedgerConnection"
import { Effect, Option, type Scope } from "effect"
import type { EventId } from "@usine/core/ids/EventId"
import type { ClaimResult } from "../RunClaims"
import { BUSY_TIMEOUT_MS } from "../Sql"
import { RECENT_CLAIMS, type RecentClaims } from "./RecentClaims"
import { type RunRow, runOfStoredRow } from "./RunRow"
import { SqliteDatabase } from "../SqliteDatabase"
import type { LedgerFault } from "../ledgerPort"

/** The Event's row joined with its Run (all columns null when it has none) and its ignore reason. */
type RecordedRow = { readonly event_status: string; readonly ignored_reason: string | null } & (
  | RunRow
  | { readonly [K in keyof RunRow]: null }
)

const RECORDED_SQL = `SELECT e.rowid AS rowid_of_row, e.id AS event_id_of_row, e.status AS event_status, i.reason AS ignored_reason, r.*
  FROM usine_events e
  LEFT JOIN usine_runs r ON r.event_id = e.id
  LEFT JOIN usine_ignored_events i ON i.event_id = e.id`
/** A row of `NEWEST_FINAL_SQL`: the Event's id beside its Run's columns. */
type NewestRow = RecordedRow & { readonly event_id_of_row: string }

const FINAL_OUTCOME_WHERE = "WHERE e.id = "
const FINAL_OUTCOME_SQL = `${RECORDED_SQL} ${FINAL_OUTCOME_WHERE}?`
/** The newest Events whose answer is final, oldest of them first: what `recent` starts with. */
const NEWEST_FINAL_SQL = `SELECT * FROM (${RECORDED_SQL} WHERE e.status IN ('claimed', 'ignored')
  ORDER BY e.rowid DESC LIMIT ${RECENT_CLAIMS}) AS newest ORDER BY rowid_of_row`

/**
 * What `recordAndClaim` answers for an Event already recorded, when that answer can never change: Claimed with its
 * Run (Run rows are never deleted; the Event must already say `claimed`, the status the claim would write) or Ignored
 * with its reason (rows of `usine_ignored_events` are never deleted). Anything else goes to the transaction.
 */
export const finalOutcomeOf = (eventId: EventId, row: RecordedRow | undefined): Option.Option<ClaimResult> => {
  if (row === undefined) return Option.none()
  if (row.id !== null) {
    if (row.event_status !== "claimed") return Option.none()
    return Option.some({ _tag: "Claimed", run: runOfStoredRow(row), opened: false, superseded: Option.none() })
  }
  if (row.ignored_reason !== null) return Option.some({ _tag: "Ignored", eventId, reason: row.ignored_reason })
  return Option.none()
}

/**
 * A read-only look-up before the claim's write transaction, `recent` first (no SQL when it knows the Event, ADR
 * 0080). On a ledger file it reads through a second, query-only connection with one prepared statement: in WAL mode
 * that connection sees committed rows only, so an in-flight claim can never be answered from. Elsewhere (`:memory:`,
 * another client) it reads through the client, whose semaphore waits for any open transaction. An Event not yet
 * recorded, or whose outcome may still change, is none. `recent` starts with the ledger's newest final answers.
 */
export const makeDuplicateCheck = (
  sql: SqlClient.SqlClient,
  recent: RecentClaims
): Effect.Effect<(eventId: EventId) => Effect.Effect<Option.Option<ClaimResult>, LedgerFault>, LedgerFault, Scope.Scope> =>
  Effect.gen(function* () {
    const remembered = (eventId: EventId, row: RecordedRow | undefined, readAt: number) => {
      const answer = finalOutcomeOf(eventId, row)
      if (Option.isSome(answer)) recent.remember(eventId, answer.value, readAt)
      return answer
    }
    const rebuild = (rows: ReadonlyArray<NewestRow>, readAt: number) => {
      for (const row of rows) remembered(row.event_id_of_row as EventId, row, readAt)
    }
    const known = (eventId: EventId) => {
      const answer = recent.get(eventId)
      return answer === undefined ? Option.none() : Option.some(answer)
    }
    const connection = Option.flatten(yield* Effect.serviceOption(LedgerConnection))
    const filename = Option.getOrUndefined(Option.map(connection, (c) => c.filename))
    if (filename === undefined || filename === "" || filename === ":memory:" || filename.startsWith("file:")) {
      const readAt = recent.epoch()
      rebuild(yield* sql.unsafe<NewestRow>(NEWEST_FINAL_SQL), readAt)
      return (eventId: EventId) =>
        Effect.suspend(() => {
          const hit = known(eventId)
          if (Option.isSome(hit)) return Effect.succeed(hit)
          const readAt = recent.epoch()
          // The client's own placeholders (`?` on SQLite, `$1` on PostgreSQL).
          return sql<RecordedRow>`${sql.literal(RECORDED_SQL)} ${sql.literal(FINAL_OUTCOME_WHERE)}${eventId}`.pipe(
            Effect.map((rows) => remembered(eventId, rows[0], readAt))
          )
        })
    }
    const reader = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const db = SqliteDatabase.open(filename, { fileMustExist: true })
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
        db.pragma("query_only = 1")
        return db
      }),
      (db) => Effect.sync(() => db.close())
    )
    rebuild(reader.prepare(NEWEST_FINAL_SQL).all() as Parameters<typeof rebuild>[0], recent.epoch())
    const statement = reader.prepare(FINAL_OUTCOME_SQL)
    // The read and the remembering are one synchronous step: no write of this process can come between them.
    return (eventId: EventId) =>
      Effect.sync(() => {
        const hit = known(eventId)
        return Option.isSome(hit) ? hit : remembered(eventId, statement.get(eventId) as RecordedRow | undefined, recent.epoch())
      })
  })
