import { Context, type Effect, type Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { HeldWork } from "@usine/core/attempt/outcome"
import type { HeldPatch, Review } from "@usine/core/attempt/Review"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import type { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"

/** The newest Attempt of a Run that stopped at the pull-request gate: its kept work, its diff, the review it got. */
export interface HeldAttempt {
  readonly attempt: Attempt
  readonly held: HeldWork
  readonly patch: HeldPatch
  readonly review: Option.Option<Review>
}

/** The diffs of Attempts' held or harvested work, and the held Attempt a review answers. */
export class AttemptPatches extends Context.Tag("usine/AttemptPatches")<
  AttemptPatches,
  {
    /** Stores the unified diff of the open Attempt's held or harvested work (bounded by the caller). */
    readonly recordPatch: (attemptId: AttemptId, patch: HeldPatch) => Effect.Effect<void, AttemptNotOpen>
    /** The Run's newest held Attempt, if it has one. */
    readonly heldAttempt: (runId: RunId) => Effect.Effect<Option.Option<HeldAttempt>>
    /** The stored diff of the Run's last Attempt that has one (held at the gate or harvested), with its number. */
    readonly latestPatch: (runId: RunId) => Effect.Effect<Option.Option<{ readonly attemptNumber: number; readonly patch: HeldPatch }>>
  }
>() {}
