import { Clock, Duration, Effect, Exit, Option } from "effect"
import type { Run } from "@usine/core/run/Run"
import { BrakeStore } from "@usine/store/BrakeStore"
import type { LoopPolicy } from "../LoopPolicies"
import type { Bell } from "./Bell"
import { holdVerdict } from "./holdVerdict"
import { retryBackoff } from "./retryBackoff"

/** A held Run looks at its brakes again this often: polling frees WIP slots, and the ledger may change under it. */
const BRAKE_RECHECK_INTERVAL = Duration.minutes(1)

/**
 * Waits until no brake holds the Run's next Attempt. While held, the ledger says why (Needs you shows it), and the
 * fiber looks again when the brake's time comes, when an operator rings the bell, or every minute.
 */
export const awaitAdmission = Effect.fn("Brakes.awaitAdmission")(function*(run: Run, policy: LoopPolicy, bell: Bell) {
  const brakes = yield* BrakeStore
  let held = false
  // A held Run superseded, canceled or stopped with the daemon no longer waits; a restart holds it again. The one hold a
  // restart cannot derive again, an open Run's retry backoff, stays for the next daemon to wait out (ADR 0050).
  const release = Effect.flatMap(Clock.currentTimeMillis, (now) => retryBackoff(run, now)).pipe(
    Effect.flatMap((backoff) => (Option.isSome(backoff) ? Effect.void : brakes.releaseRun(run.id)))
  )
  yield* Effect.addFinalizer((exit) => (held && Exit.isInterrupted(exit) ? release : Effect.void))
  for (;;) {
    const rung = bell.next
    const now = yield* Clock.currentTimeMillis
    const verdict = yield* holdVerdict(run, policy, now)
    if (Option.isNone(verdict)) {
      yield* brakes.releaseRun(run.id)
      if (held) yield* Effect.logInfo("brakes released the run")
      return
    }
    const hold = verdict.value
    yield* brakes.holdRun({ runId: run.id, kind: hold.kind, reason: hold.reason, until: hold.until, since: now })
    if (!held) yield* Effect.logInfo(`run held: ${hold.reason}`).pipe(Effect.annotateLogs({ brake: hold.kind }))
    held = true
    const wait = hold.until === undefined
      ? BRAKE_RECHECK_INTERVAL
      : Duration.min(BRAKE_RECHECK_INTERVAL, Duration.millis(Math.max(0, hold.until - now)))
    yield* Effect.raceFirst(Effect.sleep(wait), rung)
  }
})
