import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { RUN_STATE_TAGS, RunStateTagSchema, RunSummary, SUMMARY_COLUMNS, SummaryRow, summaryOf } from "./RunSummary"
import { sameRepository } from "../SqlDialect"

/** Which Runs the Runs page lists; `before` is the `next` cursor of the previous page. */
export interface RunFilter {
  readonly loop?: string | undefined
  readonly repository?: string | undefined
  readonly itemKey?: string | undefined
  readonly state?: typeof RunStateTagSchema.Type | undefined
  /** Received at or after, epoch ms. */
  readonly since?: number | undefined
  /** Received before, epoch ms. */
  readonly until?: number | undefined
  readonly before?: string | undefined
  readonly limit: number
}

export const StateCounts = Schema.Struct(
  Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, Schema.Number])) as {
    readonly [K in typeof RunStateTagSchema.Type]: typeof Schema.Number
  }
)
export type StateCounts = typeof StateCounts.Type

export const RunPage = Schema.Struct({
  runs: Schema.Array(RunSummary),
  /** The cursor of the next (older) page; absent on the last page. */
  next: Schema.optional(Schema.String),
  /** Runs per state under every filter but `state` and the cursor. */
  counts: StateCounts
})
export type RunPage = typeof RunPage.Type

/** Keyset position: the last Run of a page, newest first by receipt time then id. */
const cursorOf = (run: Pick<RunSummary, "receivedAt" | "id">): string => `${run.receivedAt}-${run.id}`

const parseCursor = (cursor: string): Option.Option<{ readonly receivedAt: number; readonly id: string }> => {
  const match = /^(\d+)-([0-9a-f]+)$/.exec(cursor)
  return match === null ? Option.none() : Option.some({ receivedAt: Number(match[1]), id: match[2] ?? "" })
}

/** The Runs page: one indexed keyset page and the counts per state. */
export const makeRunList = (sql: SqlClient.SqlClient) => {
  const decodeRows = Schema.decodeUnknown(Schema.Array(SummaryRow))
  const decodeCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ state: RunStateTagSchema, n: Schema.Number })))

  const conditions = (filter: RunFilter) => [
    ...(filter.loop === undefined ? [] : [sql`r.loop = ${filter.loop}`]),
    ...(filter.repository === undefined ? [] : [sameRepository(sql, "r.repository", filter.repository)]),
    ...(filter.itemKey === undefined ? [] : [sql`r.item_key = ${filter.itemKey}`]),
    ...(filter.since === undefined ? [] : [sql`r.received_at >= ${filter.since}`]),
    ...(filter.until === undefined ? [] : [sql`r.received_at < ${filter.until}`])
  ]

  return Effect.fn("ReadModel.runs")(function* (filter: RunFilter) {
    const cursor = filter.before === undefined ? Option.none() : parseCursor(filter.before)
    const page = [
      ...conditions(filter),
      ...(filter.state === undefined ? [] : [sql`r.state = ${filter.state}`]),
      ...Option.match(cursor, {
        onNone: () => [],
        onSome: (c) => [sql`(r.received_at, r.id) < (${c.receivedAt}, ${c.id})`]
      })
    ]
    const rows = yield* decodeRows(
      yield* sql`SELECT ${sql.literal(SUMMARY_COLUMNS)} FROM usine_runs r WHERE ${sql.and(page)}
          ORDER BY r.received_at DESC, r.id DESC LIMIT ${filter.limit + 1}`
    )
    const counted = yield* decodeCounts(
      yield* sql`SELECT r.state AS state, count(*) AS n FROM usine_runs r WHERE ${sql.and(conditions(filter))}
          GROUP BY r.state`
    )
    const runs = rows.slice(0, filter.limit).map(summaryOf)
    const last = runs.at(-1)
    const counts = Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, 0])) as Record<typeof RunStateTagSchema.Type, number>
    for (const { n, state } of counted) counts[state] = n
    return {
      runs,
      ...(rows.length > filter.limit && last !== undefined ? { next: cursorOf(last) } : {}),
      counts
    } satisfies RunPage
  })
}
