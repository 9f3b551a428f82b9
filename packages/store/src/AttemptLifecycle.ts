import { Context, type Effect } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import type { AttemptNotOpen, RunNotFound, RunStateConflict, StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"

/** How `beginAttempt` found the Run. */
export type BeginResult =
  | { readonly _tag: "Started"; readonly run: Run; readonly attempt: Attempt }
  | { readonly _tag: "Reattached"; readonly run: Run; readonly attempt: Attempt }
  /** A restart found the open Attempt gone at number 3 or above: it closed as InfraFailure and the Run Failed. */
  | { readonly _tag: "Failed"; readonly run: Run }

/** What the engine does after an Attempt's outcome is recorded. */
export type FinishDecision =
  | { readonly _tag: "RetryAttempt"; readonly run: Run }
  | { readonly _tag: "Closed"; readonly run: Run }
  /** The Attempt stopped at the pull-request gate: the Run is Reviewing, parked with no fiber (ADR 0063). */
  | { readonly _tag: "Held"; readonly run: Run }

type Refusal = RunNotFound | RunStateConflict | StaleRunVersion

/** An Attempt from its start to its outcome: the ledger decides what the Run does next. */
export class AttemptLifecycle extends Context.Tag("usine/AttemptLifecycle")<
  AttemptLifecycle,
  {
    /**
     * Starts the next Attempt (Startable → Running), or reattaches the open one when `live` says it still runs.
     * An open Attempt that is not live closes as InfraFailure first; at number 3 or above the Run Fails.
     */
    readonly beginAttempt: (
      runId: RunId,
      options: { readonly live: (attempt: Attempt) => boolean; readonly worker?: string }
    ) => Effect.Effect<BeginResult, Refusal>
    /** Records the executor's handle for reattaching the Attempt's session. */
    readonly recordSession: (attemptId: AttemptId, session: string) => Effect.Effect<void, AttemptNotOpen>
    /**
     * Closes the open Attempt; Running → Succeeded, Failed, Reviewing (an outcome that held its work at the
     * pull-request gate), or stays Running for an auto-retry.
     */
    readonly finishAttempt: (
      attemptId: AttemptId,
      outcome: AttemptOutcome
    ) => Effect.Effect<FinishDecision, Refusal | AttemptNotOpen>
  }
>() {}
