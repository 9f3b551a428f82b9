import { Clock, Duration, Effect, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import { AttemptPatches } from "@usine/store/AttemptPatches"
import { ParkedRuns } from "@usine/store/ParkedRuns"
import type { RunLookup } from "@usine/store/RunLookup"
import type { Executor } from "../Executor"
import { LoopPolicies } from "../LoopPolicies"
import { RunDriver } from "../RunDriver"
import { salvageHeld } from "./salvageHeld"

/**
 * The longest the approval timer sleeps. No longer than the shortest `approval_timeout` (one minute): a Run that
 * began waiting after a sweep is seen by the next one before its deadline, which is then slept to exactly; a reload
 * that sets or shortens a Loop's timeout is seen within it too.
 */
const APPROVAL_RECHECK = Duration.minutes(1)

interface ApprovalSweep {
  readonly expired: ReadonlyArray<RunId>
  /** The earliest deadline still ahead, in epoch milliseconds; None when no Waiting Run has one. */
  readonly next: Option.Option<number>
}

/**
 * Cancels every Waiting or Reviewing Run whose Loop's `approval_timeout` has run out since it began waiting there
 * (its held work salvaged, ADR 0063), read from the ledger,
 * so a restart loses no deadline), then lets its Loop and Item take up their queued Events.
 */
const expireApprovals = Effect.fn("RunEngine.expireApprovals")(function*() {
  const parked = yield* ParkedRuns
  const policies = yield* LoopPolicies
  const driver = yield* RunDriver
  const now = yield* Clock.currentTimeMillis
  const expired: Array<RunId> = []
  let next: number | undefined
  for (const waiting of yield* parked.awaitingApproval) {
    const minutes = Option.getOrUndefined(policies.loop(waiting.loop))?.approvalTimeoutMinutes
    if (minutes === undefined) continue
    const deadline = waiting.since + minutes * 60_000
    if (now < deadline) {
      next = next === undefined ? deadline : Math.min(next, deadline)
      continue
    }
    yield* parked.expireApproval(waiting.runId, minutes).pipe(
      Effect.tap((run) => Effect.zipRight(salvageHeld(run), driver.closed(run))),
      Effect.andThen(() => expired.push(waiting.runId)),
      Effect.catchAll((e) => Effect.logInfo("approval changed before it expired", e)),
      Effect.annotateLogs({ runId: waiting.runId, loop: waiting.loop })
    )
  }
  if (expired.length > 0) yield* Effect.logInfo(`canceled ${expired.length} run(s) nobody approved in time`)
  return { expired, next: Option.fromNullable(next) } satisfies ApprovalSweep
})

/**
 * One sleeper on the earliest approval deadline: it sweeps, sleeps until that deadline or `APPROVAL_RECHECK`,
 * whichever comes first, and sweeps again. Runs for the life of the caller's scope.
 */
export const approvalTimer: Effect.Effect<never, never, ParkedRuns | AttemptPatches | RunLookup | LoopPolicies | RunDriver | Executor> = Effect.gen(function*() {
  const sweep = yield* expireApprovals()
  const now = yield* Clock.currentTimeMillis
  const nap = Option.match(sweep.next, {
    onNone: () => APPROVAL_RECHECK,
    onSome: (deadline) => Duration.min(Duration.millis(Math.max(0, deadline - now)), APPROVAL_RECHECK)
  })
  yield* Effect.sleep(nap)
}).pipe(
  Effect.catchAllCause((cause) =>
    Effect.zipRight(Effect.logError("approval timer failed; it looks again", cause), Effect.sleep(APPROVAL_RECHECK))
  ),
  Effect.forever
)
