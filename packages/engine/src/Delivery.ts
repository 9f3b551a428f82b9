import { Schema } from "effect"

/**
 * What became of an operator message (ADR 0062), told as it is: `delivered` once the agent's CLI acknowledged it,
 * `queued` when it waits in the session's channel (or in `$USINE_INBOX` for an agent that may read it), `refused`
 * when the harness has no way to hand it over mid-turn.
 */
export const Delivery = Schema.Union(
  Schema.Struct({ status: Schema.Literal("delivered"), detail: Schema.String }),
  Schema.Struct({ status: Schema.Literal("queued"), detail: Schema.String }),
  Schema.Struct({ status: Schema.Literal("refused"), detail: Schema.String })
)
export type Delivery = typeof Delivery.Type
