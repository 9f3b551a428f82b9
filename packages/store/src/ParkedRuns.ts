import { Context, type Effect } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { RunNotFound, RunStateConflict, StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"

/**
 * A Run parked for approval (Waiting) or at the pull-request gate (Reviewing): the approval timer's deadline is
 * `since` plus its Loop's `approval_timeout`.
 */
interface AwaitingApproval {
  readonly runId: RunId
  readonly loop: string
  readonly since: number
}

type Refusal = RunNotFound | RunStateConflict | StaleRunVersion

/** Runs parked with no fiber until someone answers: the driver parks them, the approval timer expires them. */
export class ParkedRuns extends Context.Tag("usine/ParkedRuns")<
  ParkedRuns,
  {
    /** Pending → Waiting. */
    readonly parkForApproval: (runId: RunId) => Effect.Effect<Run, Refusal>
    /** Waiting and Reviewing Runs and when each began waiting there (its latest transition to it), oldest first. */
    readonly awaitingApproval: Effect.Effect<ReadonlyArray<AwaitingApproval>>
    /** Waiting or Reviewing → Canceled (ApprovalTimedOut). */
    readonly expireApproval: (runId: RunId, afterMinutes: number) => Effect.Effect<Run, Refusal>
  }
>() {}
