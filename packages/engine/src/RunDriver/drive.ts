import { Effect, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { isOpen } from "@usine/core/run/state"
import { RunStore } from "@usine/store/RunStore"
import type { Bell } from "../Brakes/Bell"
import { LoopPolicies } from "../LoopPolicies"
import { withStoreRetry } from "../storeRetryPolicy"
import { type ClaimFollowUp, continueWithNewest } from "./continueWithNewest"
import { executeAttempt } from "./executeAttempt"

/**
 * The life of one open Run's fiber: park for approval, or run Attempts (each in its own Worker slot, each past the
 * brakes) while the ledger decides RetryAttempt, then process the newest queued Event of the same Loop and Item.
 */
export const drive = Effect.fn("RunDriver.drive")(function*(runId: RunId, fibers: ClaimFollowUp, bell: Bell) {
  const store = yield* RunStore
  const run = yield* withStoreRetry(store.getRun(runId))
  if (!isOpen(run.state) || run.state._tag === "Waiting") return
  yield* driveOpen(run, fibers, bell).pipe(Effect.annotateLogs({ loop: run.loop, item: run.itemKey }))
}, (effect, runId) => Effect.annotateLogs(effect, { runId }))

const driveOpen = (opened: Run, fibers: ClaimFollowUp, bell: Bell) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const policies = yield* LoopPolicies
    const found = policies.loop(opened.loop)
    if (Option.isNone(found)) {
      return yield* Effect.logError("no policy for the run's loop; the run stays open until the loop is configured")
    }
    const policy = found.value
    if (opened.state._tag === "Pending" && (opened.approvalRequired || policy.approvalRequired)) {
      yield* withStoreRetry(store.parkForApproval(opened.id))
      return
    }
    let run = opened
    for (;;) {
      const decision = yield* Effect.scoped(executeAttempt(run, policy, bell))
      run = decision.run
      if (decision._tag === "Closed") break
    }
    yield* continueWithNewest(run.loop, run.itemKey, fibers)
  })
