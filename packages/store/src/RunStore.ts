import { Context, type Effect, type Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { AttemptOutcome, HeldWork } from "@usine/core/attempt/outcome"
import type { PushRecord } from "@usine/core/attempt/PushRecord"
import type { HeldPatch, Review } from "@usine/core/attempt/Review"
import type { Submission } from "@usine/core/event/Submission"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { EventId } from "@usine/core/ids/EventId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import type { AttemptNotOpen, RunNotFound, RunStateConflict, StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"
import type { Transition } from "@usine/core/run/Transition"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { TranscriptCap } from "@usine/core/transcript/transcriptCap"

/** The Ask stored when an Item's cycle budget is used up; only the operator's reset answers it. */
export interface CycleBudgetAsk {
  readonly askId: string
  readonly loop: string
  readonly itemKey: ItemKey
  readonly generation: number
  readonly limit: number
  readonly askedAt: number
}

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

/** What the engine does after an Attempt's outcome is recorded. */
export type FinishDecision =
  | { readonly _tag: "RetryAttempt"; readonly run: Run }
  | { readonly _tag: "Closed"; readonly run: Run }
  /** The Attempt stopped at the pull-request gate: the Run is Reviewing, parked with no fiber (ADR 0063). */
  | { readonly _tag: "Held"; readonly run: Run }

/** The newest Attempt of a Run that stopped at the pull-request gate: its kept work, its diff, the review it got. */
export interface HeldAttempt {
  readonly attempt: Attempt
  readonly held: HeldWork
  readonly patch: HeldPatch
  readonly review: Option.Option<Review>
}

/** How `beginAttempt` found the Run. */
export type BeginResult =
  | { readonly _tag: "Started"; readonly run: Run; readonly attempt: Attempt }
  | { readonly _tag: "Reattached"; readonly run: Run; readonly attempt: Attempt }
  /** A restart found the open Attempt gone at number 3 or above: it closed as InfraFailure and the Run Failed. */
  | { readonly _tag: "Failed"; readonly run: Run }

/** An operator's replacement of a Run's task text, Agent and model for every later Attempt. */
export interface Amendment {
  readonly task?: string
  readonly agent?: string
  readonly model?: string
}

export interface QueuedEvent {
  readonly eventId: EventId
  readonly loop: string
  readonly itemKey: ItemKey
  readonly receivedAt: number
  readonly submission: Submission
}

/**
 * A Run parked for approval (Waiting) or at the pull-request gate (Reviewing): the approval timer's deadline is
 * `since` plus its Loop's `approval_timeout`.
 */
interface AwaitingApproval {
  readonly runId: RunId
  readonly loop: string
  readonly since: number
}

type StoreError = RunNotFound | RunStateConflict | StaleRunVersion

/**
 * The ledger. Every state change goes through a typed transition in `@usine/core/run/state` and writes its
 * transition row in the same transaction. Writes that take `expectedVersion` refuse a stale caller.
 */
export class RunStore extends Context.Tag("usine/RunStore")<
  RunStore,
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
    /** Pending → Waiting. */
    readonly parkForApproval: (runId: RunId) => Effect.Effect<Run, StoreError>
    /** Waiting → Queued with the approval Event; a repeat on a Queued or later Run is a no-op (`approved: false`). */
    readonly approve: (
      runId: RunId,
      expectedVersion?: number
    ) => Effect.Effect<{ readonly run: Run; readonly approved: boolean }, StoreError>
    /**
     * Starts the next Attempt (Startable → Running), or reattaches the open one when `live` says it still runs.
     * An open Attempt that is not live closes as InfraFailure first; at number 3 or above the Run Fails.
     */
    readonly beginAttempt: (
      runId: RunId,
      options: { readonly live: (attempt: Attempt) => boolean; readonly worker?: string }
    ) => Effect.Effect<BeginResult, StoreError>
    /** Records the executor's handle for reattaching the Attempt's session. */
    readonly recordSession: (attemptId: AttemptId, session: string) => Effect.Effect<void, AttemptNotOpen>
    /**
     * Closes the open Attempt; Running → Succeeded, Failed, Reviewing (an outcome that held its work at the
     * pull-request gate), or stays Running for an auto-retry.
     */
    readonly finishAttempt: (
      attemptId: AttemptId,
      outcome: AttemptOutcome
    ) => Effect.Effect<FinishDecision, StoreError | AttemptNotOpen>
    /**
     * Operator retry: Failed → Running, no cap; optionally amends task, Agent and model first, and then writes a Run
     * note with the earlier and the new ones in the same transaction.
     */
    readonly retry: (
      runId: RunId,
      options?: { readonly amendment?: Amendment; readonly expectedVersion?: number }
    ) => Effect.Effect<Run, StoreError>
    /** Any open state → Canceled (OperatorCanceled); an open Attempt closes as Canceled. Repeat is a no-op. */
    readonly cancel: (
      runId: RunId,
      options?: { readonly expectedVersion?: number; readonly reason?: string }
    ) => Effect.Effect<{ readonly run: Run; readonly canceled: boolean; readonly attempt: Option.Option<Attempt> }, StoreError>
    /** The Item stopped matching the Loop: cancels its unstarted Runs (Revoked) and ignores its queued Events. */
    readonly revoke: (loop: string, itemKey: ItemKey) => Effect.Effect<ReadonlyArray<RunId>>
    /**
     * Reviewing → Running (Approve PR): the review is stored with the held Attempt; the next Attempt publishes its
     * work. With `text` (Request changes), the next Attempt gives the text to the agent instead.
     */
    readonly answerReview: (
      runId: RunId,
      answer: { readonly text?: string; readonly expectedVersion?: number }
    ) => Effect.Effect<Run, StoreError>
    /** Stores the unified diff of the open Attempt's held or harvested work (bounded by the caller). */
    readonly recordPatch: (attemptId: AttemptId, patch: HeldPatch) => Effect.Effect<void, AttemptNotOpen>
    /**
     * Records the commit and branch the open Attempt is about to push, before the push is sent (ADR 0082). The first
     * record stays: returns the one that holds.
     */
    readonly recordPush: (attemptId: AttemptId, push: PushRecord) => Effect.Effect<PushRecord, AttemptNotOpen>
    /** The push recorded for the Attempt, if any. */
    readonly recordedPush: (attemptId: AttemptId) => Effect.Effect<Option.Option<PushRecord>>
    /** The Run's newest held Attempt, if it has one. */
    readonly heldAttempt: (runId: RunId) => Effect.Effect<Option.Option<HeldAttempt>>
    /** The stored diff of the Run's last Attempt that has one (held at the gate or harvested), with its number. */
    readonly latestPatch: (runId: RunId) => Effect.Effect<Option.Option<{ readonly attemptNumber: number; readonly patch: HeldPatch }>>
    /** Waiting or Reviewing → Canceled (ApprovalTimedOut). */
    readonly expireApproval: (runId: RunId, afterMinutes: number) => Effect.Effect<Run, StoreError>
    /** Marks the latest failed Attempt handled; the state does not change. */
    readonly resolveFailure: (runId: RunId) => Effect.Effect<Run, StoreError>
    /**
     * New generation for the Item, Ask cleared, unstarted reservations moved, `reset_pending` set. With `askId`, a
     * reset that does not answer the Item's open Ask (a repeated click) changes nothing.
     */
    readonly resetCycleBudget: (
      itemKey: ItemKey,
      options?: { readonly askId?: string }
    ) => Effect.Effect<{ readonly generation: number }>
    /** The Item's current cycle generation (0 when never reset). */
    readonly generation: (itemKey: ItemKey) => Effect.Effect<number>
    /** Items whose budget was reset since the last poll consumed the flag; reading clears it. */
    readonly takeResetPending: (repository: string) => Effect.Effect<ReadonlyArray<ItemKey>>
    /** Open cycle-budget Asks. */
    readonly asks: Effect.Effect<ReadonlyArray<CycleBudgetAsk>>
    /** Pauses or unpauses a Loop. */
    readonly setPaused: (loop: string, paused: boolean) => Effect.Effect<void>
    readonly pausedLoops: Effect.Effect<ReadonlySet<string>>
    /**
     * Appends transcript rows to an Attempt, up to `cap` (the default Loop's when absent); past it one marker row,
     * last, counts what was dropped (ADR 0085). Returns the new last sequence number.
     */
    readonly appendTranscript: (
      attemptId: AttemptId,
      entries: ReadonlyArray<TranscriptEntry>,
      cap?: TranscriptCap
    ) => Effect.Effect<number>
    /** How many transcript rows of the Attempt's sequence reached the ledger, kept or dropped past the cap. */
    readonly transcriptPosition: (attemptId: AttemptId) => Effect.Effect<number>
    readonly transcript: (
      attemptId: AttemptId,
      afterSeq?: number
    ) => Effect.Effect<ReadonlyArray<TranscriptEntry & { readonly seq: number }>>
    readonly getRun: (runId: RunId) => Effect.Effect<Run, RunNotFound>
    readonly openRuns: Effect.Effect<ReadonlyArray<Run>>
    /** Waiting and Reviewing Runs and when each began waiting there (its latest transition to it), oldest first. */
    readonly awaitingApproval: Effect.Effect<ReadonlyArray<AwaitingApproval>>
    readonly attempts: (runId: RunId) => Effect.Effect<ReadonlyArray<Attempt>>
    readonly transitions: (runId: RunId) => Effect.Effect<ReadonlyArray<Transition>>
  }
>() {}

