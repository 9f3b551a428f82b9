import type { AttemptFailure } from "./failure"

/** The engine retries an InfraFailure without the operator until this many Attempts exist. */
const MAX_AUTO_ATTEMPTS = 3

/**
 * Only an InfraFailure retries by itself, only below Attempt 3, and only after `infraRetryDelay` (the engine holds the
 * Run until then). The cap counts the Attempt number, not Attempts since the last operator retry, so an operator retry
 * of a third Attempt that hits an InfraFailure fails the Run again. Attempts the daemon's own stop ended before any
 * agent ran (`daemonStops`, see `DaemonStops`) are not the Run's doing and do not count.
 */
export const shouldAutoRetry = (failure: AttemptFailure, attemptNumber: number, daemonStops = 0): boolean =>
  failure._tag === "InfraFailure" && attemptNumber - daemonStops < MAX_AUTO_ATTEMPTS
