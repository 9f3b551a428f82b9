import { Option } from "effect"
import { SessionRanAway, SessionStalled } from "./SessionFailures"

export interface SessionLimits {
  /** No progress line for this long ends the session as stalled. */
  readonly stallMs?: number | undefined
  /** A session older than this is a runaway. */
  readonly maxAttemptMs?: number | undefined
}

/** Which limit a session crossed at `now`, if any; running too long wins over a stall. */
export const breachedLimit = (input: {
  readonly attemptDir: string
  readonly now: number
  readonly startedAt: number
  readonly lastProgressAt: number
  readonly limits: SessionLimits
}): Option.Option<SessionStalled | SessionRanAway> => {
  const { maxAttemptMs, stallMs } = input.limits
  const runningMs = input.now - input.startedAt
  if (maxAttemptMs !== undefined && runningMs >= maxAttemptMs) {
    return Option.some(new SessionRanAway({ attemptDir: input.attemptDir, runningMs, limitMs: maxAttemptMs }))
  }
  const silentMs = input.now - input.lastProgressAt
  if (stallMs !== undefined && silentMs >= stallMs) {
    return Option.some(new SessionStalled({ attemptDir: input.attemptDir, silentMs }))
  }
  return Option.none()
}
