import { Schema } from "effect"
import { Run } from "@usine/core/run/Run"

/** A `usine_runs` row as SQLite returns it. */
export const RunRow = Schema.Struct({
  id: Schema.String,
  event_id: Schema.String,
  loop: Schema.String,
  item_key: Schema.String,
  repository: Schema.String,
  number: Schema.NullOr(Schema.Number),
  generation: Schema.Number,
  state: Schema.String,
  state_json: Schema.String,
  version: Schema.Number,
  task: Schema.String,
  agent: Schema.String,
  model: Schema.NullOr(Schema.String),
  approval_required: Schema.Number,
  received_at: Schema.Number,
  created_at: Schema.Number,
  updated_at: Schema.Number,
  resolved_failure_attempt_id: Schema.NullOr(Schema.String)
})
export type RunRow = typeof RunRow.Type

/** A row decodes to the domain's Run (state from `state_json`); a Run encodes to the row it is stored as. */
export const RunFromRow = Schema.transform(RunRow, Run, {
  strict: true,
  decode: (row) => ({
    id: row.id,
    eventId: row.event_id,
    loop: row.loop,
    itemKey: row.item_key,
    repository: row.repository,
    ...(row.number === null ? {} : { number: row.number }),
    generation: row.generation,
    state: JSON.parse(row.state_json),
    version: row.version,
    task: row.task,
    agent: row.agent,
    ...(row.model === null ? {} : { model: row.model }),
    approvalRequired: row.approval_required === 1,
    receivedAt: row.received_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.resolved_failure_attempt_id === null ? {} : { resolvedFailureAttemptId: row.resolved_failure_attempt_id })
  }),
  encode: (run) => ({
    id: run.id,
    event_id: run.eventId,
    loop: run.loop,
    item_key: run.itemKey,
    repository: run.repository,
    number: run.number ?? null,
    generation: run.generation,
    state: run.state._tag,
    state_json: JSON.stringify(run.state),
    version: run.version,
    task: run.task,
    agent: run.agent,
    model: run.model ?? null,
    approval_required: run.approvalRequired ? 1 : 0,
    received_at: run.receivedAt,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    resolved_failure_attempt_id: run.resolvedFailureAttemptId ?? null
  })
})
