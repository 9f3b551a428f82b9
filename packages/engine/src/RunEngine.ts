import { Duration, Effect, Option } from "effect"
import type { StepResult } from "@usine/core/attempt/outcome"
import type { Submission } from "@usine/core/event/Submission"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { AttemptNotOpen, RunStateConflict } from "@usine/core/run/RunWriteRefusals"
import { BrakeStore } from "@usine/store/BrakeStore"
import { CycleBudgets } from "@usine/store/CycleBudgets"
import { LoopPauses } from "@usine/store/LoopPauses"
import { type Amendment, OperatorActions } from "@usine/store/OperatorActions"
import type { AttemptPatches } from "@usine/store/AttemptPatches"
import type { ParkedRuns } from "@usine/store/ParkedRuns"
import { RunClaims } from "@usine/store/RunClaims"
import { RunLookup } from "@usine/store/RunLookup"
import { Executor } from "./Executor"
import { LoopPolicies } from "./LoopPolicies"
import { RunDriver } from "./RunDriver"
import { approvalTimer } from "./RunEngine/approvalTimer"
import { LoopNotConfigured, LoopPaused } from "./RunEngine/OperatorRefusals"
import { type CapTarget, raiseDailyCap } from "./RunEngine/raiseDailyCap"
import { RECONCILE_INTERVAL, reconcile, recoverOpenRunWorkspaces } from "./RunEngine/reconcile"
import { salvageHeld } from "./RunEngine/salvageHeld"
import { Shutdown } from "./Shutdown"

/**
 * The engine's face to triggers and operators. Each action writes the ledger first, then moves fibers and
 * sessions. Building the layer recovers workspaces, reconciles, keeps reconciling every three minutes, and starts the
 * approval timer, which cancels each Waiting Run at its `approval_timeout` deadline (ADR 0058).
 */
export class RunEngine extends Effect.Service<RunEngine>()("usine/RunEngine", {
  scoped: Effect.gen(function*() {
    const claims = yield* RunClaims
    const operator = yield* OperatorActions
    const pauses = yield* LoopPauses
    const budgets = yield* CycleBudgets
    const lookup = yield* RunLookup
    const executor = yield* Executor
    const policies = yield* LoopPolicies
    const driver = yield* RunDriver
    const shutdown = yield* Shutdown
    const brakes = yield* BrakeStore
    const context = yield* Effect.context<RunClaims | RunLookup | ParkedRuns | AttemptPatches | BrakeStore | Executor | LoopPolicies | RunDriver>()

    const keepHarvested = (run: Run, harvested: Option.Option<StepResult>) =>
      Effect.gen(function*() {
        if (Option.isNone(harvested)) return
        const { pullRequestNumber, pullRequestUrl } = harvested.value
        if (pullRequestNumber !== undefined && pullRequestNumber !== run.number) {
          yield* brakes.recordPullRequest(run.loop, run.repository, pullRequestNumber, run.id)
        }
        const where = pullRequestUrl ?? (pullRequestNumber === undefined ? "its branch" : `#${pullRequestNumber}`)
        yield* Effect.logWarning(`canceled after its harvest: the work stays in ${where}`).pipe(Effect.annotateLogs({ runId: run.id }))
      })

    const refusePaused = (loop: string) =>
      Effect.flatMap(pauses.pausedLoops, (paused) => (paused.has(loop) ? new LoopPaused({ loop }) : Effect.void))

    /** Records the Event and claims its Run; after commit, stops a superseded Run's fiber and starts the new one. */
    const submit = Effect.fn("RunEngine.submit")(function*(submission: Submission) {
      if (Option.isNone(policies.loop(submission.loop))) return yield* new LoopNotConfigured({ loop: submission.loop })
      yield* refusePaused(submission.loop)
      const claim = yield* claims.recordAndClaim(submission)
      yield* driver.afterClaim(claim)
      return claim
    })

    /** The Item stopped matching the Loop: its unstarted Runs are canceled (Revoked), its queued Events ignored. */
    const revoke = Effect.fn("RunEngine.revoke")(function*(loop: string, itemKey: ItemKey) {
      yield* refusePaused(loop)
      const revoked = yield* claims.revoke(loop, itemKey)
      yield* Effect.forEach(revoked, driver.stop, { discard: true })
      return revoked
    })

    /** Waiting → Queued and the fiber starts; a repeat is a no-op, any other state a conflict. */
    const approve = Effect.fn("RunEngine.approve")(function*(runId: RunId, expectedVersion?: number) {
      const result = yield* operator.approve(runId, expectedVersion)
      if (result.approved) yield* driver.restart(runId)
      return result
    })

    /**
     * Any open state → Canceled; the open Attempt closes as Canceled and its session stops; queued Events go on. A
     * harvest that had already opened its pull request is reported (`harvested`), and the pull request counts toward
     * the Loop's `max_open_pull_requests` (ADR 0050).
     */
    const cancel = Effect.fn("RunEngine.cancel")(function*(runId: RunId, expectedVersion?: number) {
      const result = yield* operator.cancel(runId, expectedVersion === undefined ? {} : { expectedVersion })
      if (!result.canceled) {
        return { run: result.run, canceled: false, harvested: Option.none<StepResult>(), salvaged: Option.none<string>() }
      }
      yield* driver.stop(runId)
      const harvested = Option.isSome(result.attempt) ? yield* executor.cancel(result.attempt.value.id) : Option.none()
      yield* keepHarvested(result.run, harvested)
      // Reject at the pull-request gate: the held work goes to its salvage branch (ADR 0063).
      const salvaged = Option.isSome(result.attempt) ? Option.none<string>() : yield* salvageHeld(result.run).pipe(Effect.provide(context))
      yield* driver.closed(result.run)
      return { run: result.run, canceled: true, harvested, salvaged }
    })

    /**
     * At the pull-request gate (Reviewing → Running): Approve PR lets the next Attempt push the held work and open the
     * pull request; with `text`, Request changes gives it to the agent in the next Attempt, then verify, then the gate.
     */
    const answerReview = (runId: RunId, text: string | undefined, expectedVersion: number | undefined) =>
      Effect.gen(function*() {
        const run = yield* operator.answerReview(runId, {
          ...(text === undefined ? {} : { text }),
          ...(expectedVersion === undefined ? {} : { expectedVersion })
        })
        yield* driver.restart(runId)
        return run
      })
    const approvePullRequest = Effect.fn("RunEngine.approvePullRequest")((runId: RunId, expectedVersion?: number) =>
      answerReview(runId, undefined, expectedVersion)
    )
    const requestChanges = Effect.fn("RunEngine.requestChanges")((runId: RunId, text: string, expectedVersion?: number) =>
      answerReview(runId, text, expectedVersion)
    )

    const reopen = (runId: RunId, amendment: Amendment | undefined, expectedVersion: number | undefined) =>
      Effect.gen(function*() {
        const run = yield* operator.retry(runId, {
          ...(amendment === undefined ? {} : { amendment }),
          ...(expectedVersion === undefined ? {} : { expectedVersion })
        })
        yield* driver.restart(runId)
        return run
      })

    /**
     * Failed → Running with no cap on Attempts and no backoff; the next Attempt starts from the newest salvage. With
     * `expectedVersion` (the version the operator saw), a Run changed since is refused (StaleRunVersion).
     */
    const retry = Effect.fn("RunEngine.retry")((runId: RunId, expectedVersion?: number) =>
      reopen(runId, undefined, expectedVersion)
    )

    /** The same retry after replacing task text, Agent and model for every later Attempt; versioned as `retry`. */
    const editAndRetry = Effect.fn("RunEngine.editAndRetry")((runId: RunId, amendment: Amendment, expectedVersion?: number) =>
      reopen(runId, amendment, expectedVersion)
    )

    /** Marks the latest failed Attempt handled; the state does not change. */
    const resolveFailure = Effect.fn("RunEngine.resolveFailure")((runId: RunId) => operator.resolveFailure(runId))

    /** A paused Loop takes no Event and revokes nothing; its existing Runs and queued Events go on. */
    const pause = Effect.fn("RunEngine.pause")((loop: string) => pauses.setPaused(loop, true))
    const unpause = Effect.fn("RunEngine.unpause")((loop: string) => pauses.setPaused(loop, false))

    /** Answers the Item's cycle-budget Ask; with `askId`, a repeat for an Ask already answered changes nothing. */
    const resetCycleBudget = Effect.fn("RunEngine.resetCycleBudget")((itemKey: ItemKey, askId?: string) =>
      budgets.resetCycleBudget(itemKey, askId === undefined ? undefined : { askId })
    )

    /** Sets today's daily cap of a Loop (or of the daemon, without a Loop) above usine.yaml's; held Runs look again. */
    const raiseCap = Effect.fn("RunEngine.raiseCap")(function*(loop: string | undefined, to: CapTarget) {
      const raised = yield* raiseDailyCap(loop, to).pipe(Effect.provide(context))
      yield* driver.wakeHeld
      return raised
    })

    /** Ends the no-progress park of a Loop and Item: its held Run starts; a repeat changes nothing. */
    const clearNoProgress = Effect.fn("RunEngine.clearNoProgress")(function*(loop: string, itemKey: ItemKey) {
      const cleared = yield* brakes.clearPark(loop, itemKey)
      if (cleared) yield* driver.wakeHeld
      return { loop, itemKey, cleared }
    })

    /** Sends an operator message to the live session of the Run's latest Attempt (the one addressed); what became of it. */
    const intervene = Effect.fn("RunEngine.intervene")(function*(runId: RunId, attemptId: AttemptId, message: string) {
      const run = yield* lookup.getRun(runId)
      if (run.state._tag !== "Running") {
        return yield* new RunStateConflict({ runId, action: "intervene", state: run.state._tag })
      }
      const attempts = yield* lookup.attempts(runId)
      const latest = attempts.reduce<(typeof attempts)[number] | undefined>(
        (a, b) => (a === undefined || b.number > a.number ? b : a),
        undefined
      )
      if (latest === undefined || latest.id !== attemptId || latest.outcome !== undefined) {
        return yield* new AttemptNotOpen({ attemptId })
      }
      return yield* executor.intervene(attemptId, message)
    })

    const reconcileNow = reconcile().pipe(Effect.provide(context))

    /**
     * Waits for admitted Attempts after the first shutdown request, at most the longest `max_attempt_minutes` when
     * every Loop sets one, then interrupts every fiber; an executing Attempt stays live for the next start.
     */
    const drain = Effect.fn("RunEngine.drain")(function*() {
      const bounds = [...policies.loops().values()].map((p) => p.maxAttemptMinutes)
      const maxWait = bounds.length > 0 && bounds.every((m) => m !== undefined)
        ? Duration.minutes(Math.max(...bounds))
        : undefined
      const end = yield* shutdown.drain(maxWait)
      yield* driver.interruptAll
      return end
    })

    yield* recoverOpenRunWorkspaces().pipe(Effect.provide(context))
    yield* reconcileNow
    yield* Effect.sleep(RECONCILE_INTERVAL).pipe(
      Effect.zipRight(reconcileNow),
      Effect.catchAllCause((cause) => Effect.logError("reconcile failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )
    yield* approvalTimer.pipe(Effect.provide(context), Effect.forkScoped)

    return {
      submit,
      revoke,
      approve,
      cancel,
      approvePullRequest,
      requestChanges,
      retry,
      editAndRetry,
      resolveFailure,
      pause,
      unpause,
      resetCycleBudget,
      raiseCap,
      clearNoProgress,
      /** Held Runs look at their brakes again now: polling saw a pull request closed, which may free a WIP slot. */
      wakeHeld: driver.wakeHeld,
      intervene,
      /** Restarts missing fibers and takes up stranded Events; also runs on its own every three minutes. */
      reconcile: reconcileNow,
      /** A shutdown signal: the first closes admission, the second ends the drain wait. */
      requestShutdown: shutdown.requestShutdown,
      /** Completes on the first shutdown request. */
      shutdownRequested: shutdown.requested,
      drain
    } as const
  }),
  dependencies: [RunDriver.Default, Shutdown.Default]
}) {}
