import { Clock, Effect, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { isOpen } from "@usine/core/run/state"
import { RunStore } from "@usine/store/RunStore"
import { LoopPolicies } from "../LoopPolicies"
import { withStoreRetry } from "../storeRetryPolicy"
import { type ClaimFollowUp, continueWithNewest } from "./continueWithNewest"
import { executeAttempt } from "./executeAttempt"

/**
 * The life of one open Run's fiber: park for approval, or run Attempts (each in its own Worker slot) while the
 * ledger decides RetryAttempt, then process the newest queued Event of the same Loop and Item.
 */
export const drive = Effect.fn("RunDriver.drive")(function*(runId: RunId, fibers: ClaimFollowUp) {
  const store = yield* RunStore
  const run = yield* withStoreRetry(store.getRun(runId))
  if (!isOpen(run.state) || run.state._tag === "Waiting") return
  yield* driveOpen(run, fibers).pipe(Effect.annotateLogs({ loop: run.loop, item: run.itemKey }))
}, (effect, runId) => Effect.annotateLogs(effect, { runId }))

const driveOpen = (opened: Run, fibers: ClaimFollowUp) =>
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
      const { decision, retryAt } = yield* Effect.scoped(executeAttempt(run, policy))
      run = decision.run
      if (decision._tag === "Closed") break
      if (retryAt !== undefined) yield* Effect.sleep(Math.max(0, retryAt - (yield* Clock.currentTimeMillis)))
    }
    yield* continueWithNewest(run.loop, run.itemKey, fibers)
  })
