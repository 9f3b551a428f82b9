import { Schema } from "effect"
import { AttemptId } from "../ids/AttemptId"
import { RunId } from "../ids/RunId"
import { AttemptOutcome } from "./outcome"

/** One try of a Run's Step. Open while `outcome` is absent. */
export class Attempt extends Schema.Class<Attempt>("Attempt")({
  id: Schema.String.pipe(Schema.fromBrand(AttemptId)),
  runId: Schema.String.pipe(Schema.fromBrand(RunId)),
  step: Schema.String,
  number: Schema.Number,
  startedAt: Schema.Number,
  endedAt: Schema.optional(Schema.Number),
  outcome: Schema.optional(AttemptOutcome),
  /** The Worker that runs it, once placed. */
  worker: Schema.optional(Schema.String),
  /** Executor-owned handle to reattach the live session (folder, pid, host). */
  session: Schema.optional(Schema.String)
}) {}
