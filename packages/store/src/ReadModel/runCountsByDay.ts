import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { RunStateTagSchema } from "./RunSummary"
import { sameRepository } from "../SqlDialect"

/** Which Runs the Runs page's chart counts: received in [since, until), under the page's Loop, repository and Item. */
export interface DayCountFilter {
  readonly since: number
  readonly until: number
  readonly loop?: string | undefined
  readonly repository?: string | undefined
  readonly itemKey?: string | undefined
}

/** Runs received on the UTC day starting at `day` (epoch ms) that are in `state` now. */
export const DayStateCount = Schema.Struct({ day: Schema.Number, state: RunStateTagSchema, n: Schema.Number })
export type DayStateCount = typeof DayStateCount.Type

/**
 * One range scan of `usine_runs_received` (or the Loop's, repository's or Item's index), grouped by UTC day and state.
 * The day's length is written in the SQL: a bound number may arrive as a REAL, and the division must be an integer's.
 */
export const makeRunCountsByDay = (sql: SqlClient.SqlClient) => {
  const decode = Schema.decodeUnknown(Schema.Array(DayStateCount))
  return Effect.fn("ReadModel.runCountsByDay")(function* (filter: DayCountFilter) {
    const where = [
      sql`r.received_at >= ${filter.since}`,
      sql`r.received_at < ${filter.until}`,
      ...(filter.loop === undefined ? [] : [sql`r.loop = ${filter.loop}`]),
      ...(filter.repository === undefined ? [] : [sameRepository(sql, "r.repository", filter.repository)]),
      ...(filter.itemKey === undefined ? [] : [sql`r.item_key = ${filter.itemKey}`])
    ]
    return yield* decode(
      yield* sql`SELECT (r.received_at / 86400000) * 86400000 AS day, r.state AS state, count(*) AS n
          FROM usine_runs r WHERE ${sql.and(where)} GROUP BY 1, 2`
    )
  })
}
