import { Context, type Effect, type Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { RunId } from "@usine/core/ids/RunId"
import type { RunNotFound, RunStateConflict, StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"

/** An operator's replacement of a Run's task text, Agent and model for every later Attempt. */
export interface Amendment {
  readonly task?: string
  readonly agent?: string
  readonly model?: string
}

type Refusal = RunNotFound | RunStateConflict | StaleRunVersion

/**
 * The operator's writes to a Run, reached only through the engine. Writes that take `expectedVersion` refuse a
 * caller that saw an older version of the Run.
 */
export class OperatorActions extends Context.Tag("usine/OperatorActions")<
  OperatorActions,
  {
    /** Waiting → Queued with the approval Event; a repeat on a Queued or later Run is a no-op (`approved: false`). */
    readonly approve: (
      runId: RunId,
      expectedVersion?: number
    ) => Effect.Effect<{ readonly run: Run; readonly approved: boolean }, Refusal>
    /**
     * Operator retry: Failed → Running, no cap; optionally amends task, Agent and model first, and then writes a Run
     * note with the earlier and the new ones in the same transaction.
     */
    readonly retry: (
      runId: RunId,
      options?: { readonly amendment?: Amendment; readonly expectedVersion?: number }
    ) => Effect.Effect<Run, Refusal>
    /** Any open state → Canceled (OperatorCanceled); an open Attempt closes as Canceled. Repeat is a no-op. */
    readonly cancel: (
      runId: RunId,
      options?: { readonly expectedVersion?: number; readonly reason?: string }
    ) => Effect.Effect<{ readonly run: Run; readonly canceled: boolean; readonly attempt: Option.Option<Attempt> }, Refusal>
    /** Marks the latest failed Attempt handled; the state does not change. */
    readonly resolveFailure: (runId: RunId) => Effect.Effect<Run, Refusal>
    /**
     * Reviewing → Running (Approve PR): the review is stored with the held Attempt; the next Attempt publishes its
     * work. With `text` (Request changes), the next Attempt gives the text to the agent instead.
     */
    readonly answerReview: (
      runId: RunId,
      answer: { readonly text?: string; readonly expectedVersion?: number }
    ) => Effect.Effect<Run, Refusal>
  }
>() {}
