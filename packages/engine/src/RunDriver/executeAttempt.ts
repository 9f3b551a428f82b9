import { Clock, Duration, Effect, type Either, Option } from "effect"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure, RunawayFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, type AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Run } from "@usine/core/run/Run"
import { AttemptLifecycle } from "@usine/store/AttemptLifecycle"
import { AttemptPatches } from "@usine/store/AttemptPatches"
import { PushRecords } from "@usine/store/PushRecords"
import { RunLookup } from "@usine/store/RunLookup"
import { Transcripts } from "@usine/store/Transcripts"
import { afterAttempt } from "../Brakes/afterAttempt"
import { awaitAdmission } from "../Brakes/awaitAdmission"
import type { Bell } from "../Brakes/Bell"
import { holdForRetry } from "../Brakes/retryBackoff"
import { makeUsageMeter } from "../Brakes/usageMeter"
import { Executor } from "../Executor"
import { reviewDirectiveOf } from "../ReviewDirective"
import type { LoopPolicy } from "../LoopPolicies"
import { Shutdown } from "../Shutdown"
import { auditAgentWork } from "./auditAgentWork"
import type { NoCapableWorker, Slot } from "../WorkerSlots"

/** The open Attempt of a Run, if any: the latest one, while it has no outcome. */
export const openAttempt = (attempts: ReadonlyArray<Attempt>): Option.Option<Attempt> => {
  const latest = attempts.reduce<Attempt | undefined>((a, b) => (a === undefined || b.number > a.number ? b : a), undefined)
  return latest !== undefined && latest.outcome === undefined ? Option.some(latest) : Option.none()
}

const runaway = (minutes: number) =>
  new AttemptFailed({
    failure: new RunawayFailure({ reason: `the attempt ran past max_attempt_minutes (${minutes})`, evidence: "", minutes })
  })

/** What the steps before the slot found: the open Attempt, and the Worker a live session pins the slot to. */
interface Prepared {
  readonly open: Option.Option<Attempt>
  readonly prefer: string | undefined
  /** The open Attempt's session still runs (on `prefer`). */
  readonly live: boolean
}

/**
 * The steps of an Attempt before its Worker slot, within the caller's scope: ask the executor whether an open Attempt
 * still runs, and unless it does (a live session is followed again), wait for the brakes.
 */
export const prepareAttempt = Effect.fn("RunDriver.prepareAttempt")(function*(
  run: Run,
  policy: LoopPolicy,
  bell: Bell
) {
  const lookup = yield* RunLookup
  const patches = yield* AttemptPatches
  const executor = yield* Executor
  const open = openAttempt(yield* lookup.attempts(run.id))
  const wasLive = Option.isSome(open) && (yield* executor.isLive(open.value))
  if (!wasLive) yield* awaitAdmission(run, policy, bell)
  // Work held at the pull-request gate is kept in one Worker's mirror: the Attempt after the review goes there.
  const held = wasLive ? Option.none() : yield* patches.heldAttempt(run.id)
  const prefer = wasLive
    ? Option.getOrUndefined(Option.flatMap(open, (a) => Option.fromNullable(a.worker)))
    : Option.getOrUndefined(Option.map(held, (h) => h.held.worker))
  return { open, prefer, live: wasLive } satisfies Prepared
})

/**
 * One Attempt in the slot it was granted (or with no capable Worker), within the caller's scope: pass admission, ask
 * the executor whether the open Attempt still runs, begin (or reattach), execute under `max_attempt_minutes` and the
 * Run's caps, record the outcome and what the brakes learn. Returns the ledger's decision. Untraced: it stays on the
 * stack of a fiber that follows a session for hours, where a span and its context cost kilobytes (ADR 0046).
 */
export const executeAttempt = Effect.fnUntraced(function*(
  run: Run,
  policy: LoopPolicy,
  open: Option.Option<Attempt>,
  slot: Either.Either<Slot, NoCapableWorker>
) {
  const lifecycle = yield* AttemptLifecycle
  const patches = yield* AttemptPatches
  const pushes = yield* PushRecords
  const transcripts = yield* Transcripts
  const executor = yield* Executor
  const shutdown = yield* Shutdown
  yield* shutdown.admit

  const live = Option.isSome(open) && (yield* executor.isLive(open.value))
  const begin = yield* lifecycle.beginAttempt(run.id, {
    live: (attempt) => live && Option.isSome(open) && attempt.id === open.value.id,
    ...(slot._tag === "Right" ? { worker: slot.right.worker } : {})
  })
  if (begin._tag === "Failed") return { _tag: "Closed" as const, run: begin.run }
  const attempt = begin.attempt
  const reattach = begin._tag === "Reattached"

  const finish = (outcome: AttemptOutcome) => lifecycle.finishAttempt(attempt.id, outcome)
  if (slot._tag === "Left" && !reattach) {
    return yield* finish(new AttemptFailed({ failure: new AgentFailure({ reason: slot.left.message, evidence: "" }) }))
  }
  const meter = yield* makeUsageMeter(begin.run, attempt, policy)
  const review = reviewDirectiveOf(yield* patches.heldAttempt(run.id))

  const output = policy.attempt.output ?? defaultOutputCaps
  const transcriptCap = { rows: output.transcriptRows, bytes: output.transcriptBytes }
  const request = {
    run: begin.run,
    attempt,
    worker: slot._tag === "Right" ? slot.right.worker : attempt.worker ?? "",
    reattach,
    transcriptRowsStored: reattach ? yield* transcripts.transcriptPosition(attempt.id) : 0,
    policy: policy.attempt,
    onTranscript: (entries: Parameters<typeof transcripts.appendTranscript>[1]) =>
      transcripts.appendTranscript(attempt.id, entries, transcriptCap).pipe(Effect.zipRight(meter.record(entries))),
    onMeteredUsage: meter.metered,
    onSession: (session: string) =>
      lifecycle.recordSession(attempt.id, session).pipe(
        Effect.catchTag("AttemptNotOpen", (e) => Effect.logWarning("session reported for a closed attempt", e))
      ),
    review,
    onPatch: (patch: Parameters<typeof patches.recordPatch>[1]) =>
      patches.recordPatch(attempt.id, patch).pipe(
        Effect.catchTag("AttemptNotOpen", (e) => Effect.logWarning("diff reported for a closed attempt", e))
      ),
    pushes: {
      recorded: pushes.recordedPush(attempt.id),
      record: (push: Parameters<typeof pushes.recordPush>[1]) =>
        pushes.recordPush(attempt.id, push).pipe(
          Effect.asVoid,
          Effect.catchTag("AttemptNotOpen", (e) => Effect.logWarning("push reported for a closed attempt", e))
        )
    }
  }

  // Interrupting `execute` detaches the session; a stopped Attempt's session is canceled once its outcome is recorded.
  const stopped = (outcome: AttemptOutcome) => ({ stop: true, outcome })
  const minutes = policy.maxAttemptMinutes
  const executed = executor.execute(request).pipe(Effect.map((outcome) => ({ stop: false, outcome })))
  // Racing the meter forks two fibers for the whole Attempt: only a Run with a cap of its own can cross one.
  const runCapped = policy.budget?.runTokens !== undefined || policy.budget?.runCostUsd !== undefined
  const capped = runCapped
    ? executed.pipe(Effect.raceFirst(Effect.map(meter.crossed, (failure) => stopped(new AttemptFailed({ failure })))))
    : executed
  const ended = minutes === undefined ? yield* capped : yield* capped.pipe(
    Effect.timeoutTo({
      duration: Duration.millis(Math.max(0, attempt.startedAt + minutes * 60_000 - (yield* Clock.currentTimeMillis))),
      onTimeout: () => stopped(runaway(minutes)),
      onSuccess: (result) => result
    })
  )
  const outcome = ended.outcome
  yield* meter.settle
  const decision = yield* Effect.uninterruptible(
    finish(outcome).pipe(
      Effect.tap(() => afterAttempt(begin.run, attempt, outcome, policy)),
      Effect.tap(() => auditAgentWork(begin.run, outcome)),
      // The ledger keeps the Run for an automatic retry: it waits out the backoff before the next Attempt (ADR 0050).
      Effect.tap((decided) =>
        decided._tag === "RetryAttempt" && outcome._tag === "Failed" && outcome.failure._tag === "InfraFailure"
          ? holdForRetry(decided.run, attempt, outcome.failure)
          : Effect.void
      )
    )
  )
  if (ended.stop) yield* executor.cancel(attempt.id)
  else if (executor.release !== undefined) yield* executor.release(attempt)
  return decision
})
