import { Context, type Effect } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import type { EventId } from "@usine/core/ids/EventId"
import type { ItemKey } from "@usine/core/ids/ItemKey"

/** A trigger refused for trust (ADR 0032), as the Board lists it. */
export interface RefusedTrigger {
  /** `trust-refused:` and the dedup key the trigger would have had. */
  readonly eventId: EventId
  readonly loop: string
  readonly itemKey: ItemKey
  readonly repository: string
  readonly number: number | undefined
  readonly reason: string
  /** When it was first refused, epoch ms. */
  readonly at: number
}

/**
 * Refused triggers in the ledger: each is an ignored Event with its reason, under an id of its own so the same
 * content can still open a Run when a trusted user triggers it.
 */
export class TriggerRefusals extends Context.Tag("usine/TriggerRefusals")<
  TriggerRefusals,
  {
    /**
     * Records the refusal of `submission` (its `eventId` the dedup key it would have had) with its reason, in one
     * transaction; false when the same refusal was already recorded.
     */
    readonly record: (submission: Submission, reason: string) => Effect.Effect<boolean>
    /** The newest refusals first, at most `limit`, for the Board. */
    readonly recent: (limit: number) => Effect.Effect<ReadonlyArray<RefusedTrigger>>
    /** How many refusals each Loop has, for the Board's counts; Loops without one are absent. */
    readonly countsByLoop: Effect.Effect<ReadonlyMap<string, number>>
  }
>() {}
