import { Schema } from "effect"
import { Run } from "@usine/core/run/Run"
import { RunState } from "@usine/core/run/state"

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
  resolved_failure_attempt_id: Schema.NullOr(Schema.String),
  head_sha: Schema.NullOr(Schema.String)
})
export type RunRow = typeof RunRow.Type

/** The row a Run is stored as: the encoding of `RunFromRow`, without validating a Run the store built itself. */
export const rowOfRun = (run: typeof Run.Encoded): RunRow => ({
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
  resolved_failure_attempt_id: run.resolvedFailureAttemptId ?? null,
  head_sha: run.headSha ?? null
})

/** The fields of the Run a row holds, but its state. */
const fieldsOfRow = (row: RunRow) => ({
  id: row.id,
  eventId: row.event_id,
  loop: row.loop,
  itemKey: row.item_key,
  repository: row.repository,
  ...(row.number === null ? {} : { number: row.number }),
  generation: row.generation,
  version: row.version,
  task: row.task,
  agent: row.agent,
  ...(row.model === null ? {} : { model: row.model }),
  approvalRequired: row.approval_required === 1,
  receivedAt: row.received_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  ...(row.resolved_failure_attempt_id === null ? {} : { resolvedFailureAttemptId: row.resolved_failure_attempt_id }),
  ...(row.head_sha === null ? {} : { headSha: row.head_sha })
})

const decodeState = Schema.decodeUnknownSync(Schema.parseJson(RunState))

/**
 * A row the store wrote, read back without validating the Run again: only its state goes through the Schema, to
 * become its tagged class. The same Run as decoding with `RunFromRow`.
 */
export const runOfStoredRow = (row: RunRow): Run => {
  const fields = { ...fieldsOfRow(row), state: decodeState(row.state_json) }
  // The brands are nominal: the row's strings are the ids the store wrote.
  return new Run(fields as ConstructorParameters<typeof Run>[0], true)
}

/** A row decodes to the domain's Run (state from `state_json`); a Run encodes to the row it is stored as. */
export const RunFromRow = Schema.transform(RunRow, Run, {
  strict: true,
  decode: (row) => ({ ...fieldsOfRow(row), state: JSON.parse(row.state_json) }),
  encode: (run) => rowOfRun(run)
})
