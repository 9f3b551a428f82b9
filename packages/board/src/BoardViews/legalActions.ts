import type { Attempt } from "@usine/core/attempt/Attempt"
import type { Run } from "@usine/core/run/Run"
import type { RunStateTag } from "@usine/core/run/state"

/** The operator's actions on one Run. */
export type RunAction =
  | "approve"
  | "cancel"
  | "retry"
  | "editAndRetry"
  | "resolveFailure"
  | "intervene"
  | "approvePullRequest"
  | "requestChanges"

const byState: { readonly [K in RunStateTag]: (run: Pick<Run, "resolvedFailureAttemptId">, latest: Attempt | undefined) => ReadonlyArray<RunAction> } = {
  Pending: () => ["cancel"],
  Waiting: () => ["approve", "cancel"],
  Queued: () => ["cancel"],
  Running: (_, latest) => (latest !== undefined && latest.outcome === undefined ? ["intervene", "cancel"] : ["cancel"]),
  // At the pull-request gate: Approve PR, Request changes, and Reject (a cancel that salvages the held work).
  Reviewing: () => ["approvePullRequest", "requestChanges", "cancel"],
  Failed: (run, latest) =>
    latest !== undefined && run.resolvedFailureAttemptId === latest.id
      ? ["retry", "editAndRetry"]
      : ["retry", "editAndRetry", "resolveFailure"],
  Succeeded: () => [],
  Canceled: () => []
}

/** The actions the engine accepts in the Run's state: the page offers these and no others. */
export const legalActions = (
  run: Pick<Run, "state" | "resolvedFailureAttemptId">,
  latest: Attempt | undefined
): ReadonlyArray<RunAction> => byState[run.state._tag](run, latest)
