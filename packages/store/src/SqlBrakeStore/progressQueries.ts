import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Effect, Option, Schema } from "effect"
import { ItemKey } from "@usine/core/ids/ItemKey"
import type { ProgressVerdict } from "@usine/core/brakes/ProgressVerdict"
import type { ItemProgress } from "../BrakeStore"
import { column } from "../column"
import { UndefinedFromNull } from "../UndefinedFromNull"

/** How many evidence lines a progress record keeps: the newest. */
const EVIDENCE_LINES = 10

const ProgressFromRow = Schema.Struct({
  loop: Schema.String,
  itemKey: column("item_key", Schema.String.pipe(Schema.fromBrand(ItemKey))),
  lastHead: column("last_head", UndefinedFromNull(Schema.String)),
  lastPullRequest: column("last_pull_request", UndefinedFromNull(Schema.Number)),
  streak: Schema.Number,
  evidence: column("evidence_json", Schema.parseJson(Schema.Array(Schema.String))),
  parkedAt: column("parked_at", UndefinedFromNull(Schema.Number))
})

/** The record after one more judged Attempt: progress clears streak and park, no progress parks at `max` (0: never). */
const nextProgress = (
  previous: ItemProgress,
  verdict: ProgressVerdict,
  max: number,
  now: number
): ItemProgress => {
  if (verdict._tag === "Progress") {
    return {
      ...previous,
      lastHead: verdict.head ?? previous.lastHead,
      lastPullRequest: verdict.pullRequest ?? previous.lastPullRequest,
      streak: 0,
      evidence: [],
      parkedAt: undefined
    }
  }
  const streak = previous.streak + 1
  return {
    ...previous,
    streak,
    evidence: [...previous.evidence, verdict.evidence].slice(-EVIDENCE_LINES),
    parkedAt: previous.parkedAt ?? (max > 0 && streak >= max ? now : undefined)
  }
}

/** The no-progress records of Loops and Items; SQL failures are defects. */
export const makeProgressQueries = (sql: SqlClient.SqlClient) => {
  const one = SqlSchema.findOne({
    Request: Schema.Struct({ loop: Schema.String, itemKey: Schema.String }),
    Result: ProgressFromRow,
    execute: ({ itemKey, loop }) => sql`SELECT * FROM usine_item_progress WHERE loop = ${loop} AND item_key = ${itemKey}`
  })
  const parkedRows = SqlSchema.findAll({
    Request: Schema.Number,
    Result: ProgressFromRow,
    execute: (limit) =>
      sql`SELECT * FROM usine_item_progress WHERE parked_at IS NOT NULL ORDER BY parked_at, loop, item_key LIMIT ${limit}`
  })
  const read = (loop: string, itemKey: ItemKey) => one({ loop, itemKey })

  return {
    progress: Effect.fn("BrakeStore.progress")(function* (loop: string, itemKey: ItemKey) {
      return yield* read(loop, itemKey)
    }),

    recordProgress: Effect.fn("BrakeStore.recordProgress")(function* (
      loop: string,
      itemKey: ItemKey,
      verdict: ProgressVerdict,
      max: number
    ) {
      const now = yield* Clock.currentTimeMillis
      return yield* sql.withTransaction(Effect.gen(function* () {
        const previous = Option.getOrElse(yield* read(loop, itemKey), (): ItemProgress => ({
          loop,
          itemKey,
          lastHead: undefined,
          lastPullRequest: undefined,
          streak: 0,
          evidence: [],
          parkedAt: undefined
        }))
        const next = nextProgress(previous, verdict, max, now)
        yield* sql`INSERT INTO usine_item_progress (loop, item_key, last_head, last_pull_request, streak, evidence_json,
              parked_at, updated_at)
            VALUES (${loop}, ${itemKey}, ${next.lastHead ?? null}, ${next.lastPullRequest ?? null}, ${next.streak},
              ${JSON.stringify(next.evidence)}, ${next.parkedAt ?? null}, ${now})
            ON CONFLICT (loop, item_key) DO UPDATE SET last_head = excluded.last_head,
              last_pull_request = excluded.last_pull_request, streak = excluded.streak,
              evidence_json = excluded.evidence_json, parked_at = excluded.parked_at, updated_at = excluded.updated_at`
        return next
      }))
    }),

    parked: Effect.fn("BrakeStore.parked")(function* (limit: number) {
      return yield* parkedRows(limit)
    }),

    clearPark: Effect.fn("BrakeStore.clearPark")(function* (loop: string, itemKey: ItemKey) {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* sql`UPDATE usine_item_progress SET streak = 0, evidence_json = '[]', parked_at = NULL,
            updated_at = ${now}
          WHERE loop = ${loop} AND item_key = ${itemKey} AND parked_at IS NOT NULL RETURNING loop`
      return rows.length === 1
    })
  }
}
