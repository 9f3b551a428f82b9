import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import { CycleAsk, makeOpenAsks } from "./CycleAsk"
import { RUN_STATE_TAGS, RunStateTagSchema } from "./RunSummary"
import { StateCounts } from "./runList"

/** One Loop as the ledger knows it; Loops only in usine.yaml, with no Run yet, are absent. */
const LoopActivity = Schema.Struct({
  loop: Schema.String,
  counts: StateCounts,
  paused: Schema.Boolean
})
type LoopActivity = typeof LoopActivity.Type

export const LoopsOverview = Schema.Struct({
  loops: Schema.Array(LoopActivity),
  asks: Schema.Array(CycleAsk)
})
export type LoopsOverview = typeof LoopsOverview.Type

/** How many Asks the Loops page lists. */
const ASK_LIMIT = 500

const emptyCounts = (): Record<typeof RunStateTagSchema.Type, number> =>
  Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, 0])) as Record<typeof RunStateTagSchema.Type, number>

/** Per Loop: Runs by state (from the `(loop, state)` index alone), the pause flag; and the open Asks. */
export const makeLoopsOverview = (sql: SqlClient.SqlClient) => {
  const decodeCounts = Schema.decodeUnknown(
    Schema.Array(Schema.Struct({ loop: Schema.String, state: RunStateTagSchema, n: Schema.Number }))
  )
  const decodePaused = Schema.decodeUnknown(Schema.Array(Schema.Struct({ loop: Schema.String, paused: Schema.Number })))
  const asks = makeOpenAsks(sql)

  return Effect.gen(function* () {
    const counted = yield* decodeCounts(
      yield* sql`SELECT loop, state, count(*) AS n FROM usine_runs GROUP BY loop, state`
    )
    const runtime = yield* decodePaused(yield* sql`SELECT loop, paused FROM usine_loop_runtime`)
    const loops = new Map<string, { counts: Record<typeof RunStateTagSchema.Type, number>; paused: boolean }>()
    const entry = (loop: string) => {
      const found = loops.get(loop) ?? { counts: emptyCounts(), paused: false }
      loops.set(loop, found)
      return found
    }
    for (const row of counted) entry(row.loop).counts[row.state] = row.n
    for (const row of runtime) entry(row.loop).paused = row.paused === 1
    return {
      loops: [...loops.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([loop, { counts, paused }]): LoopActivity => ({ loop, counts, paused })),
      asks: yield* asks(ASK_LIMIT)
    } satisfies LoopsOverview
  }).pipe(Effect.withSpan("ReadModel.loops"))
}
