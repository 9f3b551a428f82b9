import { Schema } from "effect"

/** A file under `operator/`: an operator message, when it was sent, and what became of it (ADR 0062). */
export const OperatorMessage = Schema.parseJson(
  Schema.Struct({ text: Schema.String, at: Schema.Number, note: Schema.optional(Schema.String) })
)
