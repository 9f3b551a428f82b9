import { Cause, Effect, FiberMap, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import type { BrakeStore } from "@usine/store/BrakeStore"
import type { ClaimResult, RunStore } from "@usine/store/RunStore"
import { Bell } from "./Brakes/Bell"
import type { Executor } from "./Executor"
import type { LoopPolicies } from "./LoopPolicies"
import { continueWithNewest } from "./RunDriver/continueWithNewest"
import { drive } from "./RunDriver/drive"
import { Shutdown } from "./Shutdown"
import { StepExecutor } from "./StepExecutor"
import type { TriggerCondition } from "./TriggerCondition"

type DriverServices = RunStore | BrakeStore | Executor | StepExecutor | Shutdown | LoopPolicies | TriggerCondition

/** Answers of the ledger that mean an operator or another fiber changed the Run first. */
const RUN_CHANGED: ReadonlySet<string> = new Set(["RunStateConflict", "AttemptNotOpen", "RunNotFound", "StaleRunVersion"])

/**
 * One fiber per open Run, none for a Waiting Run until its approval. A fiber that stops on an engine failure
 * leaves its Run open in the ledger; `reconcile` starts it again.
 */
export class RunDriver extends Effect.Service<RunDriver>()("usine/RunDriver", {
  scoped: Effect.gen(function*() {
    const fibers = yield* FiberMap.make<RunId>()
    const bell = new Bell()
    const context = yield* Effect.context<DriverServices>()

    const supervise = (runId: RunId, effect: Effect.Effect<void, unknown, DriverServices>) =>
      effect.pipe(
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const expected = Cause.failureOption(cause).pipe(
            Option.exists((e) => typeof e === "object" && e !== null && RUN_CHANGED.has((e as { _tag?: string })._tag ?? ""))
          )
          return expected
            ? Effect.logInfo("the run changed under its fiber; the fiber ends", cause)
            : Effect.logError("run fiber stopped on an engine failure; reconcile restarts it", cause)
        }),
        Effect.annotateLogs({ runId }),
        Effect.provide(context)
      )

    /** Starts the Run's fiber unless one runs. */
    const start = (runId: RunId): Effect.Effect<void> =>
      FiberMap.run(fibers, runId, supervise(runId, drive(runId, { afterClaim }, bell)), { onlyIfMissing: true }).pipe(
        Effect.asVoid
      )

    /** Interrupts the Run's fiber and waits for it to end; an executing Attempt detaches and keeps running. */
    const stop = (runId: RunId): Effect.Effect<void> => FiberMap.remove(fibers, runId)

    /**
     * After an operator reopened the Run (approve, retry): the fiber that parked or closed it may still be ending,
     * for example in a five-second trigger check, and would keep a new one from starting.
     */
    const restart = (runId: RunId): Effect.Effect<void> => Effect.zipRight(stop(runId), start(runId))

    /** Follows a claim: stops a superseded Run's fiber and starts the fiber of the Run the claim opened. */
    const afterClaim = (claim: ClaimResult): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (claim._tag !== "Claimed" && claim._tag !== "CycleBlocked") return
        if (Option.isSome(claim.superseded)) yield* stop(claim.superseded.value)
        if (claim._tag === "Claimed" && claim.run.state._tag !== "Waiting") yield* start(claim.run.id)
      })

    /** After an operator closed the Run: its fiber stops, then the queued Events of its Loop and Item are processed. */
    const closed = (run: Run): Effect.Effect<void> =>
      stop(run.id).pipe(
        Effect.zipRight(
          FiberMap.run(fibers, run.id, supervise(run.id, continueWithNewest(run.loop, run.itemKey, { afterClaim })))
        ),
        Effect.asVoid
      )

    return {
      start,
      stop,
      restart,
      afterClaim,
      closed,
      /** Runs that have a fiber now. */
      running: Effect.sync((): ReadonlyArray<RunId> => Array.from(fibers, ([runId]) => runId)),
      /** After an operator lifted a brake: every held Run looks at its brakes again now. */
      wakeHeld: bell.ring,
      /** Interrupts every fiber: executing Attempts detach and stay live for the next start. */
      interruptAll: FiberMap.clear(fibers)
    } as const
  }),
  dependencies: [StepExecutor.Default, Shutdown.Default]
}) {}
