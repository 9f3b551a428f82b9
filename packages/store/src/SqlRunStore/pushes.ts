import { Effect, Option, Schema } from "effect"
import type { PushRecord } from "@usine/core/attempt/PushRecord"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"
import type { Ledger } from "./Ledger"

const PushRow = Schema.Struct({
  open: Schema.Number,
  push_branch: Schema.NullOr(Schema.String),
  push_sha: Schema.NullOr(Schema.String)
})

const recordOf = (row: typeof PushRow.Type): Option.Option<PushRecord> =>
  row.push_branch === null || row.push_sha === null ? Option.none() : Option.some({ branch: row.push_branch, sha: row.push_sha })

/** What each Attempt pushes, recorded before the push is sent (ADR 0082). */
export const makePushes = (ledger: Ledger) => {
  const { sql } = ledger
  const rowOf = (attemptId: AttemptId) =>
    sql`SELECT CASE WHEN outcome_json IS NULL THEN 1 ELSE 0 END AS open, push_branch, push_sha FROM usine_attempts WHERE id = ${attemptId}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(PushRow))),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  return {
    recordPush: Effect.fn("PushRecords.recordPush")(function* (attemptId: AttemptId, push: PushRecord) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const row = yield* rowOf(attemptId)
        if (Option.isNone(row) || row.value.open !== 1) return yield* new AttemptNotOpen({ attemptId: AttemptId(attemptId) })
        // The first record stays: a harvest run again pushes that commit, never a second one.
        const held = recordOf(row.value)
        if (Option.isSome(held)) return held.value
        yield* sql`UPDATE usine_attempts SET push_branch = ${push.branch}, push_sha = ${push.sha} WHERE id = ${attemptId}`
        return push
      }))
    }),

    recordedPush: Effect.fn("PushRecords.recordedPush")(function* (attemptId: AttemptId) {
      return Option.flatMap(yield* rowOf(attemptId), recordOf)
    })
  }
}
