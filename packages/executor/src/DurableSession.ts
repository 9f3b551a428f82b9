import { Effect, type Stream } from "effect"
import { findSession } from "./DurableSession/findSession"
import { type FollowError, followSession, type FollowOptions } from "./DurableSession/followSession"
import { decodeHandle, type SessionRecord } from "./DurableSession/SessionRecord"
import { type SessionSpec, startSession } from "./DurableSession/startSession"
import { sessionStatus } from "./DurableSession/sessionStatus"
import { type StopOptions, stopSession } from "./DurableSession/stopSession"
import { HostOperationFailed, type WorkerTransportShape } from "./WorkerTransport"

/**
 * Agent sessions that outlive the daemon (ADR 0014) on one Worker's host. Each method is one step the
 * executor takes: start, ask whether it runs, follow its stream (again, after a restart), stop it.
 */
export const make = (transport: WorkerTransportShape) => ({
  /** Starts the agent detached, in its own session and process group; the handle goes to `onSession`. */
  start: Effect.fn("DurableSession.start")((spec: SessionSpec) => startSession(transport, spec)),
  /** A folder's session: `session.json`, or a start that was not recorded, adopted (or fenced, then `None`) now. */
  find: Effect.fn("DurableSession.find")((attemptDir: string) => findSession(transport, attemptDir)),
  /** Reads a stored handle back; a handle from another host or an unreadable one is an error. */
  decode: Effect.fn("DurableSession.decode")(function* (handle: string) {
    const record = yield* decodeHandle(handle).pipe(
      Effect.mapError(
        (error) => new HostOperationFailed({ host: transport.host, operation: "decode session", detail: error.message })
      )
    )
    if (record.host !== transport.host) {
      return yield* new HostOperationFailed({
        host: transport.host,
        operation: "decode session",
        detail: `the session runs on ${record.host}`
      })
    }
    return record
  }),
  /** Running, Exited with its status, or Gone (no process, no exit status: the caller records an InfraFailure). */
  status: Effect.fn("DurableSession.status")((record: SessionRecord) => sessionStatus(transport, record)),
  /** Whether the session's wrapper still runs: same pid, same start time. */
  isLive: Effect.fn("DurableSession.isLive")(function* (record: SessionRecord) {
    return (yield* sessionStatus(transport, record))._tag === "Running"
  }),
  /** The stream file's lines after `skipLines`, until the session ends; fails on stall, runaway or vanishing. */
  follow: (record: SessionRecord, options?: FollowOptions): Stream.Stream<string, FollowError> =>
    followSession(transport, record, options),
  /** SIGTERM to the group, SIGKILL after the grace period; done once no process of the group runs. */
  stop: Effect.fn("DurableSession.stop")((record: SessionRecord, options: StopOptions) =>
    stopSession(transport, record, options)
  )
})

export type DurableSession = ReturnType<typeof make>
