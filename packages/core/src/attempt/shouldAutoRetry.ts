import type { AttemptFailure } from "./failure"

/** The engine retries an InfraFailure without the operator until this many Attempts exist. */
const MAX_AUTO_ATTEMPTS = 3

/**
 * Only an InfraFailure retries by itself, only below Attempt 3, and only after `infraRetryDelay` (the engine holds the
 * Run until then). The cap counts the Attempt number, not Attempts since the last operator retry, so an operator retry
 * of a third Attempt that hits an InfraFailure fails the Run again.
 */
export const shouldAutoRetry = (failure: AttemptFailure, attemptNumber: number): boolean =>
  failure._tag === "InfraFailure" && attemptNumber < MAX_AUTO_ATTEMPTS
