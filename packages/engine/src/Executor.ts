import { Context, type Effect, type Option, Schema } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { OutputCaps } from "@usine/core/config/OutputConfig"
import type { AttemptOutcome, HeldWork, StepResult } from "@usine/core/attempt/outcome"
import type { PushLedger } from "@usine/core/attempt/PushRecord"
import type { HeldPatch } from "@usine/core/attempt/Review"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { Run } from "@usine/core/run/Run"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import type { ReviewDirective } from "./ReviewDirective"
import type { Delivery } from "./Delivery"

/** What the executor needs to know of the Loop for one Attempt. */
export interface AttemptPolicy {
  readonly verify: ReadonlyArray<string>
  readonly verifyRounds: number
  readonly forbiddenPaths: ReadonlyArray<string>
  readonly maxChangedFiles: number | undefined
  readonly maxAttemptMinutes: number | undefined
  readonly stallMinutes: number | undefined
  readonly kind: "issues" | "pull_requests" | "schedule"
  /** `host:port` endpoints the Loop lets its sandboxes reach (ADR 0054); none when absent. */
  readonly network?: ReadonlyArray<string>
  /** Commands run in the worktree before the agent's first turn (as `verify` is run); none when absent. */
  readonly setup?: ReadonlyArray<string>
  /** Minutes each `setup` command may take; 10 when absent. */
  readonly setupMinutes?: number
  /** How a pull request the Attempt opens is written: `Closes #N` on issue Loops, draft. */
  readonly pullRequest?: { readonly closes: boolean; readonly draft: boolean }
  /** `approval.pull_request: required`: verified work stops before push, held for review (ADR 0063). */
  readonly pullRequestGate?: boolean
  /** The Agent that judges each verified round (ADR 0063); none when absent. */
  readonly judge?: string | undefined
  /** How much of what the agent and its commands print is kept (ADR 0085); `defaultOutputCaps` when absent. */
  readonly output?: OutputCaps
}

export interface AttemptRequest {
  readonly run: Run
  readonly attempt: Attempt
  /** The Worker the slot was reserved on. */
  readonly worker: string
  /** True when the session already runs and the executor only follows it again. */
  readonly reattach: boolean
  /** Transcript rows the ledger already holds for this Attempt: a reattach resumes after them, no gap, no repeat. */
  readonly transcriptRowsStored: number
  readonly policy: AttemptPolicy
  /** Transcript rows as they arrive; the engine stores them. */
  readonly onTranscript: (entries: ReadonlyArray<TranscriptEntry>) => Effect.Effect<void>
  /**
   * Usage counted outside the sandbox by the Attempt's model proxy (ADR 0086): called once with zero usage when the
   * proxy starts, before the agent does, then with each answered request's usage. Once called, the caps judge these
   * figures and the stream's usage rows are a display figure only. Never called for an Attempt without a proxy.
   */
  readonly onMeteredUsage?: (usage: Usage) => Effect.Effect<void>
  /** Called once the session is started, with the handle `isLive` and reattach need later. */
  readonly onSession: (session: string) => Effect.Effect<void>
  /** After the pull-request gate: publish the held work, or give the reviewer's text to the agent (ADR 0063). */
  readonly review?: ReviewDirective | undefined
  /** The bounded unified diff of the work held at the pull-request gate or harvested, before the outcome is returned. */
  readonly onPatch?: (patch: HeldPatch) => Effect.Effect<void>
  /** The ledger's record of what the Attempt pushes, written before the push: a harvest run again knows its own push (ADR 0082). */
  readonly pushes?: PushLedger
}

/** The session an intervention addressed is gone. */
export class SessionGone extends Schema.TaggedError<SessionGone>()("SessionGone", { attemptId: Schema.String }) {
  override get message() {
    return `the session of attempt ${this.attemptId} is not running`
  }
}

export interface RecoveryReport {
  readonly salvaged: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Workspaces of Attempts whose session still runs: left for reattach. */
  readonly kept: ReadonlyArray<string>
}

/**
 * The port between the engine and whatever runs Attempts. Interrupting `execute` detaches: the session keeps
 * running for a later reattach (drain, restart). Only `cancel` stops a session.
 */
export class Executor extends Context.Tag("usine/Executor")<
  Executor,
  {
    /** Whether an open Attempt's session still runs, for example after a daemon restart. */
    readonly isLive: (attempt: Attempt) => Effect.Effect<boolean>
    /** Runs a new Attempt, or follows a live one, to its outcome; never fails, failures are outcomes. */
    readonly execute: (request: AttemptRequest) => Effect.Effect<AttemptOutcome>
    /**
     * Stops a session: cooperative first, then forceful; the work is salvaged. Returns the Step result the Attempt had
     * already stored (its harvest pushed and opened the pull request before the cancel came), which the ledger lacks.
     */
    readonly cancel: (attemptId: AttemptId) => Effect.Effect<Option.Option<StepResult>>
    /** Hands an operator message to a live session, records it in the transcript and says what became of it. */
    readonly intervene: (attemptId: AttemptId, message: string) => Effect.Effect<Delivery, SessionGone>
    /**
     * Pushes work held at the pull-request gate to its salvage branch (Reject, approval timeout); returns the branch,
     * None when it could not (the work then stays in the Worker's mirror).
     */
    readonly salvageHeld: (run: Run, held: HeldWork, attemptNumber: number) => Effect.Effect<Option.Option<string>>
    /**
     * After the ledger recorded the Attempt's outcome: removes what the Attempt no longer needs (its folder, once its
     * work is kept elsewhere). Never before that record: a crash in between would leave the ledger an open Attempt
     * with nothing to follow, and its agent would be run again (ADR 0110). Absent: nothing to remove.
     */
    readonly release?: (attempt: Attempt) => Effect.Effect<void>
    /** Salvages or removes every workspace an earlier process left; keeps those of live sessions. */
    readonly recoverWorkspaces: (liveAttempts: ReadonlyArray<Attempt>) => Effect.Effect<RecoveryReport>
  }
>() {}
