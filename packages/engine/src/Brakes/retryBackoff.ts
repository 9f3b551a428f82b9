import { Clock, Duration, Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { InfraFailure } from "@usine/core/attempt/failure"
import { infraRetryDelay } from "@usine/core/attempt/infraRetryPolicy"
import type { Run } from "@usine/core/run/Run"
import { BrakeStore } from "@usine/store/BrakeStore"
import { LoopPolicies } from "../LoopPolicies"
import type { Hold } from "./holdVerdict"

const iso = (at: number) => new Date(at).toISOString()

/**
 * The ledger decided to retry the Attempt's InfraFailure by itself: the Run waits `infraRetryDelay` (the Loop's
 * `retry_backoff`) first, as a hold with its `until` in the ledger, so Needs you shows when it retries and a restarted
 * daemon keeps the wait (ADR 0050).
 * A quota reset time (`retryAt`) at or after that wait already holds the Agent, and then the Run too.
 */
export const holdForRetry = Effect.fn("Brakes.holdForRetry")(function*(run: Run, attempt: Attempt, failure: InfraFailure) {
  const brakes = yield* BrakeStore
  const now = yield* Clock.currentTimeMillis
  const policy = (yield* LoopPolicies).loop(run.loop)
  const delay = Duration.toMillis(infraRetryDelay(attempt.number, Option.getOrUndefined(policy)?.retryBackoffMs))
  if (delay <= 0) return
  const until = now + delay
  // A provider that named its reset time holds the Agent at least as long (afterAttempt): no second hold for the Run.
  if (failure.retryAt !== undefined && failure.retryAt >= until) return
  const reason = `retrying at ${iso(until)} after Attempt ${attempt.number} failed on infrastructure: ${failure.reason}`
  yield* brakes.holdRun({ runId: run.id, kind: "RetryBackoff", reason, until, since: now })
  yield* Effect.logInfo(`automatic retry waits until ${iso(until)}`)
})

/** The Run's automatic retry is not due yet: the hold `holdForRetry` wrote, while its `until` is ahead. */
export const retryBackoff = Effect.fn("Brakes.retryBackoff")(function*(run: Run, now: number) {
  const brakes = yield* BrakeStore
  const hold = yield* brakes.runHold(run.id)
  return Option.filter(
    Option.map(hold, (h): Hold => ({ kind: h.kind, reason: h.reason, until: h.until })),
    (h) => h.kind === "RetryBackoff" && h.until !== undefined && h.until > now
  )
})
