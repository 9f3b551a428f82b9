import { Duration, Effect, Option, Schedule } from "effect"
import { isRunning } from "../ProcStat"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { SessionSurvivedKill } from "./SessionFailures"
import type { SessionRecord } from "./SessionRecord"

export interface StopOptions {
  /** Time the group has to end after SIGTERM before SIGKILL. */
  readonly graceMs: number
  /** How long to wait for the group to disappear after SIGKILL. */
  readonly killWaitMs?: number
  readonly pollInterval?: Duration.DurationInput
}

/** How a stop ended: nothing ran any more, the group obeyed SIGTERM, or it needed SIGKILL. */
type StopOutcome = "NotRunning" | "Terminated" | "Killed"

/**
 * Stops every process of the session's group: SIGTERM, up to `graceMs` to end, then SIGKILL. Succeeds only once
 * no process of the group runs (zombies do not run). A group whose leader pid now belongs to another process
 * started later is not ours and is left alone.
 */
export const stopSession = (
  transport: WorkerTransportShape,
  record: SessionRecord,
  options: StopOptions
): Effect.Effect<StopOutcome, TransportError | SessionSurvivedKill> =>
  Effect.gen(function* () {
    const pollInterval = options.pollInterval ?? "50 millis"
    const running = transport
      .groupMembers(record.pgid)
      .pipe(Effect.map((members) => members.filter(isRunning).map((member) => member.pid)))
    const gone = (withinMs: number) =>
      running.pipe(
        Effect.repeat({ until: (pids) => pids.length === 0, schedule: Schedule.spaced(pollInterval) }),
        // Stop often runs in a finalizer: without this the timeout could not interrupt the wait.
        Effect.interruptible,
        Effect.timeoutOption(Duration.millis(withinMs)),
        Effect.map(Option.isSome)
      )

    const leader = yield* transport.processInfo(record.pid)
    const reused = Option.exists(leader, (stat) => stat.startTime !== record.startTime && stat.pgid === record.pgid)
    if (reused || (yield* running).length === 0) return "NotRunning" as const

    yield* transport.signalGroup(record.pgid, "SIGTERM")
    if (yield* gone(options.graceMs)) return "Terminated" as const
    yield* transport.signalGroup(record.pgid, "SIGKILL")
    if (yield* gone(options.killWaitMs ?? 5_000)) return "Killed" as const
    return yield* new SessionSurvivedKill({ pgid: record.pgid, pids: yield* running })
  })
