import { Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { Run } from "@usine/core/run/Run"
import { isParked } from "@usine/core/run/state"
import { RunClaims } from "@usine/store/RunClaims"
import { RunLookup } from "@usine/store/RunLookup"
import { Executor } from "../Executor"
import { LoopPolicies } from "../LoopPolicies"
import { RunDriver } from "../RunDriver"
import { openAttempt } from "../RunDriver/executeAttempt"

/** Reconcile runs at engine start and then this often. */
export const RECONCILE_INTERVAL = "3 minutes"

interface ReconcileReport {
  readonly open: number
  /** Runs whose fiber was missing (a new engine, or one that stopped on an engine failure) and started again. */
  readonly restarted: ReadonlyArray<Run["id"]>
  /** Loops and Items whose queued Events had no open Run: their newest Event is taken up (ADR 0050). */
  readonly stranded: number
}

/**
 * Starts the fiber of every open Run that has none, except Waiting and Reviewing Runs (the approval timer expires
 * those, ADR 0058, 0063),
 * and takes up the queued Events of every Loop and Item left with no open Run.
 */
export const reconcile = Effect.fn("RunEngine.reconcile")(function*() {
  const lookup = yield* RunLookup
  const claims = yield* RunClaims
  const policies = yield* LoopPolicies
  const driver = yield* RunDriver
  const open = yield* lookup.openRuns
  const running = new Set(yield* driver.running)
  const restarted: Array<Run["id"]> = []
  for (const run of open) {
    if (isParked(run.state)) continue
    if (!running.has(run.id)) restarted.push(run.id)
    yield* driver.start(run.id)
  }
  // A Loop gone from usine.yaml opens no Run; its Events wait until it is configured again.
  const stranded = (yield* claims.strandedQueued).filter((pair) => Option.isSome(policies.loop(pair.loop)))
  yield* driver.takeUpStranded(stranded)
  return { open: open.length, restarted, stranded: stranded.length } satisfies ReconcileReport
})

/** Before the first reconcile: the executor salvages or removes what an earlier process left, keeping live sessions. */
export const recoverOpenRunWorkspaces = Effect.fn("RunEngine.recoverOpenRunWorkspaces")(function*() {
  const lookup = yield* RunLookup
  const executor = yield* Executor
  const live: Array<Attempt> = []
  for (const run of yield* lookup.openRuns) {
    if (run.state._tag !== "Running") continue
    const open = openAttempt(yield* lookup.attempts(run.id))
    if (Option.isSome(open) && (yield* executor.isLive(open.value))) live.push(open.value)
  }
  return yield* executor.recoverWorkspaces(live)
})
