import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { ProgressVerdict } from "@usine/core/brakes/ProgressVerdict"
import type { ItemProgress } from "@usine/store/BrakeStore"

/**
 * Whether an ended Attempt moved its Item forward. Progress is a head commit the Loop's last progressing Attempt did
 * not leave, or a pull request other than the last one. A success without either, and a failure of the agent (it
 * delivered nothing: no change, a guard, a runaway, a cap), is no progress. An infrastructure failure, a defect of usine
 * and a cancel say nothing about the agent: `undefined`, the streak stays as it is.
 */
export const judgeProgress = (
  outcome: AttemptOutcome,
  previous: Pick<ItemProgress, "lastHead" | "lastPullRequest"> | undefined
): ProgressVerdict | undefined => {
  switch (outcome._tag) {
    case "Canceled":
      return undefined
    case "Failed": {
      const failure = outcome.failure
      if (failure._tag === "InfraFailure" || failure._tag === "DefectFailure") return undefined
      return { _tag: "NoProgress", evidence: `${failure._tag}: ${failure.reason}` }
    }
    case "Succeeded": {
      const { commits, pullRequestNumber } = outcome.result
      const head = commits.at(-1)
      const newPullRequest = pullRequestNumber !== undefined && pullRequestNumber !== previous?.lastPullRequest
      if (head !== undefined && head !== previous?.lastHead) return { _tag: "Progress", head, pullRequest: pullRequestNumber }
      if (newPullRequest) return { _tag: "Progress", head, pullRequest: pullRequestNumber }
      return {
        _tag: "NoProgress",
        evidence: head === undefined
          ? "succeeded without a commit"
          : `succeeded with head ${head.slice(0, 12)} unchanged${pullRequestNumber === undefined ? "" : ` on pull request #${pullRequestNumber}`}`
      }
    }
  }
}
