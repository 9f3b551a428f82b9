import { Cause, Effect, Either, FiberMap, Option, Runtime } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { isParked } from "@usine/core/run/state"
import type { BrakeStore } from "@usine/store/BrakeStore"
import type { AttemptLifecycle } from "@usine/store/AttemptLifecycle"
import type { AttemptPatches } from "@usine/store/AttemptPatches"
import type { ParkedRuns } from "@usine/store/ParkedRuns"
import type { PushRecords } from "@usine/store/PushRecords"
import type { ClaimResult, RunClaims, StrandedPair } from "@usine/store/RunClaims"
import type { RunLookup } from "@usine/store/RunLookup"
import type { Transcripts } from "@usine/store/Transcripts"
import { Bell } from "./Brakes/Bell"
import type { Executor } from "./Executor"
import type { LoopPolicies } from "./LoopPolicies"
import { continueWithNewest } from "./RunDriver/continueWithNewest"
import { type DriverHooks, drive } from "./RunDriver/drive"
import { runParentSpan } from "./RunDriver/runParentSpan"
import { Shutdown } from "./Shutdown"
import { type HeldSlot, WorkerSlots } from "./WorkerSlots"
import type { TriggerCondition } from "./TriggerCondition"

/** What a Run's fiber uses: the ledger's ports for claims, parking, the Attempt and its records, and the brakes. */
type DriverServices =
  | RunClaims
  | RunLookup
  | ParkedRuns
  | AttemptLifecycle
  | AttemptPatches
  | PushRecords
  | Transcripts
  | BrakeStore
  | Executor
  | WorkerSlots
  | Shutdown
  | LoopPolicies
  | TriggerCondition

/** Answers of the ledger that mean an operator or another fiber changed the Run first. */
const RUN_CHANGED: ReadonlySet<string> = new Set(["RunStateConflict", "AttemptNotOpen", "RunNotFound", "StaleRunVersion"])

/**
 * One fiber per open Run, none for a Waiting Run until its approval, and none for a Run queued for a Worker slot
 * until the slot is granted (ADR 0046). A fiber that stops on an engine failure leaves its Run open in the ledger;
 * `reconcile` starts it again.
 */
export class RunDriver extends Effect.Service<RunDriver>()("usine/RunDriver", {
  scoped: Effect.gen(function*() {
    const fibers = yield* FiberMap.make<RunId>()
    // Fibers taking up the queued Events of a Loop and Item whose Run closed without doing it (ADR 0050), by pair.
    const pairs = yield* FiberMap.make<string>()
    const bell = new Bell()
    const slots = yield* WorkerSlots
    // Run fibers fork from the runtime the driver is built in (its services, logger and clock), as FiberMap.run would
    // from its caller: a fiber then carries neither its caller's spans and annotations nor a context of its own, and a
    // Run queued for a slot needs no runtime kept for it (ADR 0046).
    const built = yield* Effect.runtime<DriverServices>()
    const runFork = Runtime.runFork(
      Runtime.make({ context: built.context, fiberRefs: built.fiberRefs, runtimeFlags: Runtime.defaultRuntime.runtimeFlags })
    )

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
        Effect.annotateLogs({ runId })
      )

    /** Forks the Run's fiber into the map, replacing one that runs; with `onlyIfMissing`, not when one runs. */
    const fork = (runId: RunId, effect: Effect.Effect<void, unknown, DriverServices>, onlyIfMissing = false) => {
      if (onlyIfMissing && FiberMap.unsafeHas(fibers, runId)) return undefined
      const fiber = runFork(supervise(runId, effect))
      FiberMap.unsafeSet(fibers, runId, fiber)
      return fiber
    }

    /**
     * Starts the Run's fiber unless one runs or the Run is queued for a slot. Its span is a child of the caller's (the
     * poll, webhook or Board action that opened or approved it, `runParentSpan`), its only tie to the caller.
     */
    const start = (runId: RunId): Effect.Effect<void> =>
      Effect.flatMap(Effect.option(Effect.currentSpan), (caller) =>
        Effect.sync(() => {
          const driven = drive(runId, hooks, bell)
          const parent = runParentSpan(caller)
          if (!slots.isQueued(runId)) fork(runId, Option.isSome(parent) ? Effect.withParentSpan(driven, parent.value) : driven, true)
        })
      )

    /**
     * Forks the fiber of a queued Run once its slot is granted (called by whichever fiber freed the slot). The slot
     * goes back when the fiber ends, even if it is interrupted before it runs; the Attempt's scope may give it back
     * earlier.
     */
    const resume = (runId: RunId, slot: HeldSlot): void => {
      const fiber = fork(runId, drive(runId, hooks, bell, slot))
      if (fiber === undefined) return slot.release()
      fiber.addObserver(slot.release)
    }

    const takeSlot: DriverHooks["takeSlot"] = (run, prefer, occupied) =>
      Effect.gen(function*() {
        const runId = run.id
        const place = yield* Effect.acquireRelease(
          slots.request(run, prefer, (slot) => resume(runId, slot), occupied).pipe(Effect.either),
          (place) =>
            Effect.sync(() => {
              if (Either.isRight(place) && place.right._tag === "Granted") place.right.slot.release()
            })
        )
        if (Either.isLeft(place)) return Option.some(Either.left(place.left))
        return place.right._tag === "Granted" ? Option.some(Either.right(place.right.slot)) : Option.none()
      })

    /**
     * Interrupts the Run's fiber and waits for it to end, or takes the Run out of the slot queue; an executing
     * Attempt detaches and keeps running.
     */
    const stop = (runId: RunId): Effect.Effect<void> => Effect.zipRight(slots.withdraw(runId), FiberMap.remove(fibers, runId))

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
        if (claim._tag === "Claimed" && !isParked(claim.run.state)) yield* start(claim.run.id)
      })

    const hooks: DriverHooks = { afterClaim, takeSlot }

    /** After an operator closed the Run: its fiber stops, then the queued Events of its Loop and Item are processed. */
    const closed = (run: Run): Effect.Effect<void> =>
      Effect.zipRight(
        stop(run.id),
        Effect.sync(() => fork(run.id, continueWithNewest(run.loop, run.itemKey, { afterClaim })))
      )

    /**
     * Takes up the newest queued Event of each Loop and Item that has no open Run: the Run it waited for closed while
     * the daemon stopped (or crashed) before its fiber did. One fiber per pair, not a second while one runs.
     */
    const takeUpStranded = (stranded: ReadonlyArray<StrandedPair>): Effect.Effect<void> =>
      Effect.sync(() => {
        for (const { itemKey, loop } of stranded) {
          const key = JSON.stringify([loop, itemKey])
          if (FiberMap.unsafeHas(pairs, key)) continue
          const effect = continueWithNewest(loop, itemKey, { afterClaim }).pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("queued events not taken up; reconcile tries again", cause)
            ),
            Effect.annotateLogs({ loop, item: itemKey })
          )
          FiberMap.unsafeSet(pairs, key, runFork(effect))
        }
      })

    return {
      start,
      stop,
      restart,
      afterClaim,
      closed,
      takeUpStranded,
      /** Runs that have a fiber now, or a place in the slot queue. */
      running: Effect.map(slots.usage, ({ waiting }): ReadonlyArray<RunId> => [
        ...Array.from(fibers, ([runId]) => runId),
        ...waiting
      ]),
      /** Runs that have a fiber now. */
      fibers: Effect.sync((): ReadonlyArray<RunId> => Array.from(fibers, ([runId]) => runId)),
      /** Runs queued for a Worker slot, in the order slots go to them; they have no fiber. */
      queued: Effect.map(slots.usage, ({ waiting }) => waiting),
      /** After an operator lifted a brake: every held Run looks at its brakes again now. */
      wakeHeld: bell.ring,
      /** Empties the slot queue and interrupts every fiber: executing Attempts detach and stay live for the next start. */
      interruptAll: Effect.zipRight(slots.withdrawAll, Effect.zipRight(FiberMap.clear(pairs), FiberMap.clear(fibers)))
    } as const
  }),
  dependencies: [WorkerSlots.Default, Shutdown.Default]
}) {}
