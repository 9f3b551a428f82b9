import { Context, type Effect, type Option } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import type { EventId } from "@usine/core/ids/EventId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import type { CycleBudgetAsk } from "./CycleBudgets"

export type ClaimResult =
  /** A Run exists for the Event: newly opened (Pending) or found, whatever its state. */
  | { readonly _tag: "Claimed"; readonly run: Run; readonly opened: boolean; readonly superseded: Option.Option<RunId> }
  /** A Run of the same Loop and Item is Running; the Event waits behind it. */
  | { readonly _tag: "Queued"; readonly eventId: EventId; readonly behind: RunId }
  /** The Event is ignored, or belongs to an older cycle generation. */
  | { readonly _tag: "Ignored"; readonly eventId: EventId; readonly reason: string }
  /** The Item's cycle budget is used up; a supersede decided first still committed. */
  | { readonly _tag: "CycleBlocked"; readonly ask: CycleBudgetAsk; readonly superseded: Option.Option<RunId> }

/** A Loop and Item whose queued Events wait with no open Run. */
export interface StrandedPair {
  readonly loop: string
  readonly itemKey: ItemKey
}

export interface QueuedEvent {
  readonly eventId: EventId
  readonly loop: string
  readonly itemKey: ItemKey
  readonly receivedAt: number
  readonly submission: Submission
}

/**
 * How Events become Runs: a claim opens, finds or queues a Run for an Event; queued Events wait for the open Run of
 * their Loop and Item; a revoke withdraws what the trigger no longer wants. Every change writes its transition row in
 * the same transaction.
 */
export class RunClaims extends Context.Tag("usine/RunClaims")<
  RunClaims,
  {
    /** Records an Event and claims a Run for it, in one transaction (the seed's five steps). */
    readonly recordAndClaim: (submission: Submission) => Effect.Effect<ClaimResult>
    /** Opens the Run of a queued Event after the blocking Run closed; older queued Events of the pair are consumed. */
    readonly claimQueued: (eventId: EventId) => Effect.Effect<ClaimResult>
    /** The newest queued Event of a Loop and Item, if any. */
    readonly newestQueued: (loop: string, itemKey: ItemKey) => Effect.Effect<Option.Option<QueuedEvent>>
    /**
     * Loops and Items that have a queued Event and no open Run: the Run they waited for closed and nothing took the
     * newest one up (the daemon stopped first, or crashed). Reconcile processes them.
     */
    readonly strandedQueued: Effect.Effect<ReadonlyArray<StrandedPair>>
    /** Marks every queued Event of a Loop and Item ignored (their trigger no longer holds). */
    readonly revokeQueued: (loop: string, itemKey: ItemKey, reason: string) => Effect.Effect<number>
    /** The Item stopped matching the Loop: cancels its unstarted Runs (Revoked) and ignores its queued Events. */
    readonly revoke: (loop: string, itemKey: ItemKey) => Effect.Effect<ReadonlyArray<RunId>>
  }
>() {}
