import { Clock, Duration, Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure, RunawayFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, type AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Run } from "@usine/core/run/Run"
import { RunStore } from "@usine/store/RunStore"
import { Executor } from "../Executor"
import type { LoopPolicy } from "../LoopPolicies"
import { Shutdown } from "../Shutdown"
import { StepExecutor } from "../StepExecutor"
import { withStoreRetry } from "../storeRetryPolicy"

/** The open Attempt of a Run, if any: the latest one, while it has no outcome. */
export const openAttempt = (attempts: ReadonlyArray<Attempt>): Option.Option<Attempt> => {
  const latest = attempts.reduce<Attempt | undefined>((a, b) => (a === undefined || b.number > a.number ? b : a), undefined)
  return latest !== undefined && latest.outcome === undefined ? Option.some(latest) : Option.none()
}

const runaway = (minutes: number) =>
  new AttemptFailed({
    failure: new RunawayFailure({ reason: `the attempt ran past max_attempt_minutes (${minutes})`, evidence: "", minutes })
  })

/**
 * One Attempt in its own slot, within the caller's scope: reserve a Worker slot, pass admission, ask the executor
 * whether an open Attempt still runs, begin (or reattach), execute under `max_attempt_minutes`, record the outcome.
 * Returns the ledger's decision and, for an InfraFailure that names one, when the provider accepts work again.
 */
export const executeAttempt = Effect.fn("RunDriver.executeAttempt")(function*(run: Run, policy: LoopPolicy) {
  const store = yield* RunStore
  const executor = yield* Executor
  const steps = yield* StepExecutor
  const shutdown = yield* Shutdown

  const open = openAttempt(yield* withStoreRetry(store.attempts(run.id)))
  const wasLive = Option.isSome(open) && (yield* executor.isLive(open.value))
  const prefer = wasLive ? Option.getOrUndefined(Option.flatMap(open, (a) => Option.fromNullable(a.worker))) : undefined
  const slot = yield* steps.reserve(run, prefer).pipe(Effect.either)
  yield* shutdown.admit

  const live = Option.isSome(open) && (yield* executor.isLive(open.value))
  const begin = yield* withStoreRetry(
    store.beginAttempt(run.id, {
      live: (attempt) => live && Option.isSome(open) && attempt.id === open.value.id,
      ...(slot._tag === "Right" ? { worker: slot.right.worker } : {})
    })
  )
  if (begin._tag === "Failed") return { decision: { _tag: "Closed" as const, run: begin.run }, retryAt: undefined }
  const attempt = begin.attempt
  const reattach = begin._tag === "Reattached"
  yield* Effect.annotateCurrentSpan({ attemptId: attempt.id, reattach })

  const finish = (outcome: AttemptOutcome) => withStoreRetry(store.finishAttempt(attempt.id, outcome))
  if (slot._tag === "Left" && !reattach) {
    const decision = yield* finish(new AttemptFailed({ failure: new AgentFailure({ reason: slot.left.message, evidence: "" }) }))
    return { decision, retryAt: undefined }
  }

  const request = {
    run: begin.run,
    attempt,
    worker: slot._tag === "Right" ? slot.right.worker : attempt.worker ?? "",
    reattach,
    transcriptRowsStored: reattach ? (yield* withStoreRetry(store.transcript(attempt.id))).length : 0,
    policy: policy.attempt,
    onTranscript: (entries: Parameters<typeof store.appendTranscript>[1]) =>
      withStoreRetry(store.appendTranscript(attempt.id, entries)).pipe(Effect.asVoid),
    onSession: (session: string) =>
      withStoreRetry(store.recordSession(attempt.id, session)).pipe(
        Effect.catchTag("AttemptNotOpen", (e) => Effect.logWarning("session reported for a closed attempt", e))
      )
  }

  const minutes = policy.maxAttemptMinutes
  let outcome: AttemptOutcome
  if (minutes === undefined) {
    outcome = yield* executor.execute(request)
  } else {
    const remaining = attempt.startedAt + minutes * 60_000 - (yield* Clock.currentTimeMillis)
    const ended = yield* executor.execute(request).pipe(Effect.timeoutOption(Duration.millis(Math.max(0, remaining))))
    if (Option.isNone(ended)) {
      const decision = yield* finish(runaway(minutes))
      yield* executor.cancel(attempt.id)
      return { decision, retryAt: undefined }
    }
    outcome = ended.value
  }
  const decision = yield* finish(outcome)
  const retryAt = outcome._tag === "Failed" && outcome.failure._tag === "InfraFailure" ? outcome.failure.retryAt : undefined
  return { decision, retryAt }
})
