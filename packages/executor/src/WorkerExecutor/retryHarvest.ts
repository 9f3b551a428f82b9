import { Clock, Duration, Effect, Schedule } from "effect"
import type { AttemptFailure } from "@usine/core/attempt/failure"
import type { RedactorService } from "@usine/core/text/Redactor"
import type { TransportError } from "../WorkerTransport"

/** GitHub asks to wait longer than this (a spent quota): the Attempt fails at once and the engine's retry waits. */
const LONGEST_IN_PLACE_WAIT_MS = 3 * 60_000

type HarvestError = AttemptFailure | TransportError

const retryAtOf = (error: HarvestError): number | undefined => (error._tag === "InfraFailure" ? error.retryAt : undefined)

/**
 * Retries a harvest that failed on GitHub (an InfraFailure: 5xx, unreachable, timed out, rate limited) in place,
 * per `policy`, never sooner than a `retryAt` GitHub named. Harvest is idempotent (the push is skipped when the
 * branch is already there, the pull request is found by its branch), so the verified change is not redone by a
 * new agent session (ADR 0047). Every other failure, and the last InfraFailure, is the caller's.
 */
export const retryHarvest = <A, R>(
  harvest: Effect.Effect<A, HarvestError, R>,
  options: { readonly policy: Schedule.Schedule<unknown>; readonly redactor: RedactorService }
): Effect.Effect<A, HarvestError, R> => {
  const worthRetrying = (error: HarvestError) =>
    error._tag !== "InfraFailure"
      ? Effect.succeed(false)
      : Effect.map(Clock.currentTimeMillis, (now) => (error.retryAt ?? now) - now <= LONGEST_IN_PLACE_WAIT_MS)
  const schedule = options.policy.pipe(
    Schedule.intersect(Schedule.identity<HarvestError>()),
    // Decided before any log: a refusal (an AgentFailure) is never "retried", nor reported as a GitHub failure.
    Schedule.whileInputEffect(worthRetrying),
    Schedule.modifyDelayEffect(([, error], delay) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const at = retryAtOf(error)
        return at === undefined ? delay : Duration.max(delay, Duration.millis(at - now))
      })
    ),
    Schedule.onDecision(([, error], decision) =>
      decision._tag === "Continue"
        ? Effect.logWarning("harvest failed on GitHub; retrying it in place").pipe(
          Effect.annotateLogs({ reason: options.redactor.redact(error.message) })
        )
        : error._tag === "InfraFailure"
        ? Effect.logWarning("harvest still fails on GitHub; the Attempt fails").pipe(
          Effect.annotateLogs({ reason: options.redactor.redact(error.message) })
        )
        : Effect.void
    )
  )
  return Effect.retry(harvest, schedule)
}
