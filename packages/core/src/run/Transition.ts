import { Schema } from "effect"
import { RunId } from "../ids/RunId"

/** Who caused a state change. */
export const Actor = Schema.Literal("engine", "operator", "trigger")
export type Actor = typeof Actor.Type

/** One row of the append-only transition log: every state change has exactly one. */
export class Transition extends Schema.Class<Transition>("Transition")({
  seq: Schema.Number,
  runId: Schema.String.pipe(Schema.fromBrand(RunId)),
  /** Absent for the row that opens the Run. */
  from: Schema.optional(Schema.String),
  to: Schema.String,
  actor: Actor,
  /** The GitHub login of the signed-in person behind an `operator` change (ADR 0096); absent for older rows and scripts. */
  login: Schema.optional(Schema.String),
  reason: Schema.String,
  at: Schema.Number
}) {}
