import { Schema } from "effect"
import { EventId } from "../ids/EventId"
import { loopItemFields } from "../ids/loopItemFields"

/** What a trigger hands the engine for one Loop and Item whose `if:` holds. */
export const Submission = Schema.Struct({
  eventId: Schema.String.pipe(Schema.fromBrand(EventId)),
  ...loopItemFields,
  /** Issue or pull request number; absent for a schedule Tick. */
  number: Schema.optional(Schema.Number),
  /** The Item's cycle generation when the trigger read it. */
  generation: Schema.Number,
  contentHash: Schema.optional(Schema.String),
  /** A pull request's head commit when the trigger read it: the Run starts there and pushes only over it. */
  headSha: Schema.optional(Schema.String),
  /** The rendered prompt. */
  task: Schema.String,
  agent: Schema.String,
  model: Schema.optional(Schema.String),
  approvalRequired: Schema.Boolean,
  /** The Loop's cycle budget per Item; absent means none (schedule Loops). */
  maxCycles: Schema.optional(Schema.Number),
  /** When the trigger saw the change, epoch ms; Worker slots are served in this order. */
  receivedAt: Schema.Number
})
export type Submission = typeof Submission.Type
