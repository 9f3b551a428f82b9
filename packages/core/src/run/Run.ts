import { Schema } from "effect"
import { EventId } from "../ids/EventId"
import { RunId } from "../ids/RunId"
import { AttemptId } from "../ids/AttemptId"
import { RunState } from "./state"
import { loopItemFields } from "../ids/loopItemFields"

/** A Run as the ledger holds it. `version` increases with every write; a stale write is refused. */
export class Run extends Schema.Class<Run>("Run")({
  id: Schema.String.pipe(Schema.fromBrand(RunId)),
  eventId: Schema.String.pipe(Schema.fromBrand(EventId)),
  ...loopItemFields,
  number: Schema.optional(Schema.Number),
  generation: Schema.Number,
  state: RunState,
  version: Schema.Number,
  task: Schema.String,
  agent: Schema.String,
  model: Schema.optional(Schema.String),
  approvalRequired: Schema.Boolean,
  /** For a pull request, its head commit when the trigger read it (and an approver saw it). */
  headSha: Schema.optional(Schema.String),
  receivedAt: Schema.Number,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  /** The latest failed Attempt an operator marked as handled. */
  resolvedFailureAttemptId: Schema.optional(Schema.String.pipe(Schema.fromBrand(AttemptId)))
}) {}
