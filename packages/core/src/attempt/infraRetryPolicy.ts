import { Duration } from "effect"

/**
 * How long an automatic retry of an InfraFailure waits (seed 000 §17): `min(base * factor^(n - 1), max)` after
 * Attempt n failed, so 1 minute after Attempt 1 and 4 minutes after Attempt 2. No jitter: one daemon retries few Runs
 * at once, and the wait must be exact under `TestClock`. An operator Retry does not wait.
 */
const infraRetryPolicy = {
  base: Duration.minutes(1),
  factor: 4,
  max: Duration.minutes(15)
} as const

/**
 * The wait before the automatic retry that follows Attempt `attemptNumber`'s InfraFailure: the Loop's
 * `retry_backoff` when it has one (its last wait repeats; none retries at once), otherwise `infraRetryPolicy`.
 */
export const infraRetryDelay = (attemptNumber: number, backoffMs?: ReadonlyArray<number>): Duration.Duration =>
  backoffMs !== undefined
    ? Duration.millis(backoffMs.length === 0 ? 0 : backoffMs[Math.min(Math.max(0, attemptNumber - 1), backoffMs.length - 1)] ?? 0)
    : Duration.min(
      Duration.times(infraRetryPolicy.base, infraRetryPolicy.factor ** Math.max(0, attemptNumber - 1)),
      infraRetryPolicy.max
    )
