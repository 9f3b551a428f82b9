import { Data, Effect, Option } from "effect"
import { constants } from "node:os"
import { isRunning } from "../ProcStat"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import type { SessionRecord } from "./SessionRecord"
import { sessionFiles } from "./sessionFiles"

/** Where a session stands: its wrapper runs, it wrote an exit status, or it vanished without one. */
export type SessionStatus = Data.TaggedEnum<{
  Running: {}
  Exited: { readonly exitCode: number | null; readonly signal: string | null }
  Gone: {}
}>
export const SessionStatus = Data.taggedEnum<SessionStatus>()

const signalNames = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]))

/** Reads the wrapper's exit file: a shell reports death by signal N as 128 + N. */
const parseExitFile = (text: string): { readonly exitCode: number | null; readonly signal: string | null } => {
  const status = Number.parseInt(text.trim(), 10)
  if (!Number.isInteger(status)) return { exitCode: null, signal: null }
  const signal = status > 128 ? signalNames.get(status - 128) : undefined
  return signal === undefined ? { exitCode: status, signal: null } : { exitCode: null, signal }
}

/**
 * The wrapper is checked before the exit file: it writes the file before it exits, so a wrapper seen gone
 * with no file means the file will never come.
 */
export const sessionStatus = (
  transport: WorkerTransportShape,
  record: SessionRecord
): Effect.Effect<SessionStatus, TransportError> =>
  Effect.gen(function* () {
    const wrapper = yield* transport.processInfo(record.pid)
    const running = Option.exists(wrapper, (stat) => stat.startTime === record.startTime && isRunning(stat))
    if (running) return SessionStatus.Running()
    // A status is a few bytes: read no more, whoever wrote the file (ADR 0085).
    const exit = yield* transport.readFile(sessionFiles(record.attemptDir).exit, { maxBytes: 4096 })
    return Option.match(exit, {
      onNone: () => SessionStatus.Gone(),
      onSome: (bytes) => SessionStatus.Exited(parseExitFile(Buffer.from(bytes).toString("utf8")))
    })
  })
