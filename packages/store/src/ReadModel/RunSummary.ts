import { Schema } from "effect"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { loopItemFields } from "@usine/core/ids/loopItemFields"

/** The seven Run state tags, as stored in `usine_runs.state`. */
export const RunStateTagSchema = Schema.Literal("Pending", "Waiting", "Queued", "Running", "Reviewing", "Succeeded", "Failed", "Canceled")

export const RUN_STATE_TAGS = RunStateTagSchema.literals

/** A Run as lists show it: no task text, no transcript. */
export const RunSummary = Schema.Struct({
  id: Schema.String.pipe(Schema.fromBrand(RunId)),
  ...loopItemFields,
  number: Schema.optional(Schema.Number),
  state: RunStateTagSchema,
  /** The tag of a Canceled Run's reason (`OperatorCanceled`, `Superseded`, `Revoked`, `ApprovalTimedOut`). */
  cancelReason: Schema.optional(Schema.String),
  /** Increases with every write: an action can send it to refuse acting on a stale page. */
  version: Schema.Number,
  agent: Schema.String,
  model: Schema.optional(Schema.String),
  approvalRequired: Schema.Boolean,
  receivedAt: Schema.Number,
  updatedAt: Schema.Number
})
export type RunSummary = typeof RunSummary.Type

/** The columns `RunSummaryFromRow` reads, for `SELECT ${SUMMARY_COLUMNS} FROM usine_runs r`. */
export const SUMMARY_COLUMNS =
  "r.id, r.loop, r.item_key, r.repository, r.number, r.state, r.state_json, r.version, r.agent, r.model, " +
  "r.approval_required, r.received_at, r.updated_at"

export const SummaryRow = Schema.Struct({
  id: Schema.String,
  loop: Schema.String,
  item_key: Schema.String,
  repository: Schema.String,
  number: Schema.NullOr(Schema.Number),
  state: RunStateTagSchema,
  state_json: Schema.parseJson(Schema.Struct({ reason: Schema.optional(Schema.Struct({ _tag: Schema.String })) })),
  version: Schema.Number,
  agent: Schema.String,
  model: Schema.NullOr(Schema.String),
  approval_required: Schema.Number,
  received_at: Schema.Number,
  updated_at: Schema.Number
})

/** A decoded summary row as the domain's summary. */
export const summaryOf = (row: typeof SummaryRow.Type): RunSummary => ({
  id: RunId(row.id),
  loop: row.loop,
  itemKey: ItemKey(row.item_key),
  repository: row.repository,
  ...(row.number === null ? {} : { number: row.number }),
  state: row.state,
  ...(row.state_json.reason === undefined ? {} : { cancelReason: row.state_json.reason._tag }),
  version: row.version,
  agent: row.agent,
  ...(row.model === null ? {} : { model: row.model }),
  approvalRequired: row.approval_required === 1,
  receivedAt: row.received_at,
  updatedAt: row.updated_at
})
