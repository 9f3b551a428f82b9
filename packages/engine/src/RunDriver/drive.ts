import { Effect, Either, Option, type Scope } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import { parseItemKey } from "@usine/core/ids/ItemKey"
import type { Run } from "@usine/core/run/Run"
import { isOpen, isParked } from "@usine/core/run/state"
import { ParkedRuns } from "@usine/store/ParkedRuns"
import { RunLookup } from "@usine/store/RunLookup"
import type { Bell } from "../Brakes/Bell"
import { LoopPolicies, type LoopPolicy } from "../LoopPolicies"
import type { HeldSlot, NoCapableWorker, Slot } from "../WorkerSlots"
import { type ClaimFollowUp, continueWithNewest } from "./continueWithNewest"
import { executeAttempt, openAttempt, prepareAttempt } from "./executeAttempt"

/** What a Run fiber asks of the driver that owns it. */
export interface DriverHooks extends ClaimFollowUp {
  /**
   * A Worker slot for the Run's next Attempt, released when the caller's scope closes; None when the Run was queued
   * for one instead: the fiber ends, and the driver forks a new one with the slot once it is granted.
   */
  readonly takeSlot: (
    run: Run,
    prefer: string | undefined,
    /** The Run's session still runs on `prefer`: granted at once, even over the Worker's capacity. */
    occupied: boolean
  ) => Effect.Effect<Option.Option<Either.Either<Slot, NoCapableWorker>>, never, Scope.Scope>
}

/**
 * The life of one open Run's fiber: park for approval, or run Attempts (each in its own Worker slot, each past the
 * brakes) while the ledger decides RetryAttempt, then process the newest queued Event of the same Loop and Item. A
 * fiber that queues its Run for a slot ends there; `granted` is the slot a fiber started with when it resumes the Run.
 * Untraced, like `executeAttempt`: the fiber can wait for hours, and `supervise` annotates its logs with the Run. One
 * plain span covers the Run's work (`RunDriver.drive`, with its id, Loop and Item) and one each Attempt.
 */
export const drive = Effect.fnUntraced(function*(runId: RunId, hooks: DriverHooks, bell: Bell, granted?: HeldSlot) {
  const lookup = yield* RunLookup
  const run = yield* lookup.getRun(runId)
  // Waiting and Reviewing Runs have no fiber: an operator (or the approval timer) moves them on.
  if (!isOpen(run.state) || isParked(run.state)) return
  yield* driveOpen(run, hooks, bell, granted).pipe(
    Effect.annotateLogs({ loop: run.loop, item: run.itemKey }),
    Effect.withSpan("RunDriver.drive", { attributes: runSpanAttributes(run) })
  )
})

/** What a Run's spans say about it; the daemon's tracer hands `usine.*` attributes down to every span under them. */
const runSpanAttributes = (run: Run) => {
  const item = parseItemKey(run.itemKey)
  return {
    "usine.run_id": run.id,
    "usine.loop": run.loop,
    "usine.item": item === undefined ? run.itemKey : item.number === undefined ? item.repository : `${item.repository}#${item.number}`
  }
}

const driveOpen = (opened: Run, hooks: DriverHooks, bell: Bell, granted: HeldSlot | undefined) =>
  Effect.gen(function*() {
    const parked = yield* ParkedRuns
    const policies = yield* LoopPolicies
    const found = policies.loop(opened.loop)
    if (Option.isNone(found)) {
      return yield* Effect.logError("no policy for the run's loop; the run stays open until the loop is configured")
    }
    const policy = found.value
    if (granted === undefined && opened.state._tag === "Pending" && (opened.approvalRequired || policy.approvalRequired)) {
      yield* parked.parkForApproval(opened.id)
      return
    }
    let run = opened
    let slot = granted
    for (;;) {
      const decision = yield* nextAttempt(run, policy, hooks, bell, slot)
      slot = undefined
      if (Option.isNone(decision)) return
      // At the pull-request gate the Run stays open, its queued Events wait behind it, and its fiber ends.
      if (decision.value._tag === "Held") return
      run = decision.value.run
      if (decision.value._tag === "Closed") break
    }
    yield* continueWithNewest(run.loop, run.itemKey, hooks)
  })

/** One Attempt in its own scope, in the slot granted or in one taken now; None when the Run was queued for a slot. */
const nextAttempt = (run: Run, policy: LoopPolicy, hooks: DriverHooks, bell: Bell, granted: HeldSlot | undefined) =>
  Effect.scoped(Effect.gen(function*() {
    if (granted !== undefined) {
      yield* Effect.addFinalizer(() => Effect.sync(granted.release))
      const lookup = yield* RunLookup
      const open = openAttempt(yield* lookup.attempts(run.id))
      return Option.some(yield* executeAttempt(run, policy, open, Either.right(granted)).pipe(Effect.withSpan("RunDriver.attempt")))
    }
    const prepared = yield* prepareAttempt(run, policy, bell)
    const slot = yield* hooks.takeSlot(run, prepared.prefer, prepared.live)
    if (Option.isNone(slot)) return Option.none()
    return Option.some(yield* executeAttempt(run, policy, prepared.open, slot.value).pipe(Effect.withSpan("RunDriver.attempt")))
  }))
