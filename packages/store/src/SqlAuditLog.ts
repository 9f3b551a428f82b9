import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { AuditActor, AuditLog, type AuditFilter, AuditOutcome, type AuditRecord } from "./AuditLog"
import { column } from "./column"
import { ledgerPort } from "./ledgerPort"
import { UndefinedFromNull } from "./UndefinedFromNull"

const AuditRow = Schema.Struct({
  id: Schema.Number,
  at: Schema.Number,
  actor: AuditActor,
  login: UndefinedFromNull(Schema.String),
  action: Schema.String,
  outcome: AuditOutcome,
  repository: UndefinedFromNull(Schema.String),
  loop: UndefinedFromNull(Schema.String),
  runId: column("run_id", UndefinedFromNull(Schema.String)),
  itemKey: column("item_key", UndefinedFromNull(Schema.String)),
  detail: UndefinedFromNull(Schema.String),
  result: UndefinedFromNull(Schema.String)
})

const COLUMNS = "id, at, actor, login, action, outcome, repository, loop, run_id, item_key, detail, result"

/** Keyset position: the last entry of a page, newest first by time then id. */
const cursorOf = (entry: { readonly at: number; readonly id: number }): string => `${entry.at}-${entry.id}`

const parseCursor = (cursor: string): Option.Option<{ readonly at: number; readonly id: number }> => {
  const match = /^(\d+)-(\d+)$/.exec(cursor)
  return match === null ? Option.none() : Option.some({ at: Number(match[1]), id: Number(match[2]) })
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const decodeRows = Schema.decodeUnknown(Schema.Array(AuditRow))

  const conditions = (filter: AuditFilter) => [
    ...(filter.login === undefined ? [] : [filter.login === null ? sql`login IS NULL AND actor = 'operator'` : sql`login = ${filter.login}`]),
    ...(filter.repository === undefined ? [] : [sql`repository = ${filter.repository}`]),
    ...(filter.readable === undefined
      ? []
      : [filter.readable.length === 0 ? sql`repository IS NULL` : sql`(repository IS NULL OR ${sql.in("repository", filter.readable)})`]),
    ...(filter.action === undefined ? [] : [sql`action = ${filter.action}`]),
    ...(filter.loop === undefined ? [] : [sql`loop = ${filter.loop}`]),
    ...(filter.since === undefined ? [] : [sql`at >= ${filter.since}`]),
    ...(filter.until === undefined ? [] : [sql`at < ${filter.until}`]),
    ...Option.match(filter.before === undefined ? Option.none() : parseCursor(filter.before), {
      onNone: () => [],
      onSome: (c) => [sql`(at, id) < (${c.at}, ${c.id})`]
    })
  ]

  const append = Effect.fn("AuditLog.append")(function* (record: AuditRecord) {
    const at = yield* Clock.currentTimeMillis
    yield* sql`INSERT INTO usine_audit (at, actor, login, action, outcome, repository, loop, run_id, item_key, detail, result)
        VALUES (${at}, ${record.actor}, ${record.login ?? null}, ${record.action}, ${record.outcome}, ${record.repository ?? null},
         ${record.loop ?? null}, ${record.runId ?? null}, ${record.itemKey ?? null}, ${record.detail ?? null},
         ${record.result ?? null})`
  })

  const page = Effect.fn("AuditLog.page")(function* (filter: AuditFilter) {
    const limit = Math.max(1, Math.trunc(filter.limit))
    const rows = yield* decodeRows(
      yield* sql`SELECT ${sql.literal(COLUMNS)} FROM usine_audit WHERE ${sql.and(conditions(filter))}
          ORDER BY at DESC, id DESC LIMIT ${limit + 1}`
    )
    const entries = rows.slice(0, limit)
    const last = entries.at(-1)
    return { entries, ...(rows.length > limit && last !== undefined ? { next: cursorOf(last) } : {}) }
  })

  return ledgerPort(AuditLog, { append, page })
})

/** The audit on the ledger (SQLite or PostgreSQL); needs the ledger's `SqlClient` below it. */
export const layer: Layer.Layer<AuditLog, never, SqlClient.SqlClient> = Layer.effect(AuditLog, make)
