import { Schema } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"

/** A `usine_attempts` row as SQLite returns it. */
const AttemptRow = Schema.Struct({
  id: Schema.String,
  run_id: Schema.String,
  step: Schema.String,
  number: Schema.Number,
  started_at: Schema.Number,
  ended_at: Schema.NullOr(Schema.Number),
  outcome_json: Schema.NullOr(Schema.String),
  worker: Schema.NullOr(Schema.String),
  session: Schema.NullOr(Schema.String)
})
type AttemptRow = typeof AttemptRow.Type

/** A row decodes to the domain's Attempt (outcome from `outcome_json`) and back. */
export const AttemptFromRow = Schema.transform(AttemptRow, Attempt, {
  strict: true,
  decode: (row) => ({
    id: row.id,
    runId: row.run_id,
    step: row.step,
    number: row.number,
    startedAt: row.started_at,
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
    ...(row.outcome_json === null ? {} : { outcome: JSON.parse(row.outcome_json) }),
    ...(row.worker === null ? {} : { worker: row.worker }),
    ...(row.session === null ? {} : { session: row.session })
  }),
  encode: (attempt) => ({
    id: attempt.id,
    run_id: attempt.runId,
    step: attempt.step,
    number: attempt.number,
    started_at: attempt.startedAt,
    ended_at: attempt.endedAt ?? null,
    outcome_json: attempt.outcome === undefined ? null : JSON.stringify(attempt.outcome),
    worker: attempt.worker ?? null,
    session: attempt.session ?? null
  })
})
