import { Effect } from "effect"
import type { AttemptFailure } from "@usine/core/attempt/failure"
import { InfraFailure } from "@usine/core/attempt/failure"
import type { StepResult } from "@usine/core/attempt/outcome"
import { boundPatch, type HeldPatch } from "@usine/core/attempt/Review"
import { collectChange, type HarvestInput } from "../Harvest"
import type { TransportError } from "../WorkerTransport"
import type { VerifyEntry } from "../WorkerExecutor/AttemptJournal"
import { salvageLocalRef } from "./branchName"
import { verificationSection } from "./verificationSection"

/**
 * The pull-request gate's stop before push (ADR 0063): the agent's work collected into the daemon's harvest
 * repository and guarded as harvest does, then kept in the Worker's mirror under the Attempt's local salvage ref
 * (the next Attempt of the Run starts from it, as from any salvage). Nothing goes to GitHub. Returns the held
 * result and the bounded unified diff, computed in the harvest repository, never where the agent wrote.
 */
export const holdForReview = Effect.fn("Harvest.holdForReview")(function* (
  input: Pick<HarvestInput, "git" | "redactor" | "begin" | "policy" | "run" | "attemptNumber"> & {
    readonly worker: string
    readonly verification: ReadonlyArray<VerifyEntry>
  }
): Effect.fn.Return<{ readonly result: StepResult; readonly patch: HeldPatch | undefined }, AttemptFailure | TransportError> {
  const collected = yield* collectChange(input)
  if ("nothing" in collected) return { result: collected.nothing, patch: undefined }
  const ref = salvageLocalRef(input.run.id, input.attemptNumber)
  // usine's commit is what is held, and what a Reject pushes to the salvage branch: only a tree leaves (issue 31).
  yield* input.git.keepCommit(collected.built, ref).pipe(
    Effect.catchTag("GitCommandFailed", (error) =>
      Effect.fail(new InfraFailure({ reason: "keeping the held work in the mirror failed", evidence: input.redactor.redact(error.message) }))
    )
  )
  const count = collected.commits.length
  return {
    result: {
      commits: collected.commits,
      ...collected.changes,
      held: {
        worker: input.worker,
        head: collected.built,
        ref,
        subjects: collected.subjects,
        verification: verificationSection({ commands: input.policy.verify, rounds: input.verification, redactor: input.redactor })
      },
      summary: `${count} commit${count === 1 ? "" : "s"} verified; waits for review before anything is pushed`
    },
    patch: boundPatch(input.redactor.redact(collected.diff))
  }
})
