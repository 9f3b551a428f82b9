import { Context, Data, Effect, Layer } from "effect"
import type { QueuedEvent } from "@usine/store/RunClaims"

/** The check could not be made (GitHub unreachable, `if:` failed to evaluate); the engine counts it as true. */
export class TriggerConditionUnavailable extends Data.TaggedError("TriggerConditionUnavailable")<{
  readonly eventId: string
  readonly cause: unknown
}> {
  override get message() {
    return `cannot check the trigger condition of ${this.eventId}`
  }
}

/** Re-checks a Loop's `if:` before a queued Event opens its Run; the GitHub package implements it. */
export class TriggerCondition extends Context.Tag("usine/TriggerCondition")<
  TriggerCondition,
  {
    /** Whether the Loop's `if:` still holds for the queued Event's Item, read again now. */
    readonly holds: (event: QueuedEvent) => Effect.Effect<boolean, TriggerConditionUnavailable>
  }
>() {
  /** Every queued Event still holds: for a daemon without GitHub triggers. */
  static readonly layerAlways = Layer.succeed(TriggerCondition, { holds: () => Effect.succeed(true) })
}
