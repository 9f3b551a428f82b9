import type { Attempt } from "./Attempt"
import { InfraFailure } from "./failure"

/**
 * How many times the daemon may stop while it prepares one Run's Attempts before the Run fails: a stop before the
 * agent starts is not the Run's doing (a crash, a leader's loss), but a Run whose preparation itself brings the daemon
 * down must not crash-loop it for ever.
 */
export const MAX_DAEMON_STOPS = 5

/** The failure that closes an open Attempt found without an agent session after a restart (ADR 0110). */
export const daemonStopped = () =>
  new InfraFailure({ reason: "the daemon stopped while it prepared the Attempt, before the agent started", kind: "DaemonStopped" })

/** How many of a Run's Attempts were ended by the daemon's stop before their agent started. */
export const daemonStopsOf = (attempts: ReadonlyArray<Attempt>): number =>
  attempts.filter((a) =>
    a.outcome?._tag === "Failed" && a.outcome.failure._tag === "InfraFailure" && a.outcome.failure.kind === "DaemonStopped"
  ).length
