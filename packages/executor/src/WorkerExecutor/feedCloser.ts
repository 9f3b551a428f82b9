import { Effect } from "effect"
import type { SessionRecord } from "../DurableSession/SessionRecord"
import { sessionFiles } from "../DurableSession/sessionFiles"
import type { StreamParser } from "../harness/Harness"
import { idOfMessageFile } from "../Intervention"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { feedLine } from "./feedLine"

/**
 * For a session whose wrapper feeds the CLI's stdin (ADR 0062): drops `inbox/close` once the parser sees the CLI
 * idle with no message waiting in the feed and every fed one answered, so the feeder ends its input and the CLI exits;
 * takes it back when the stream says the CLI went on (a retry, a message it took). When the parser asks for an idle
 * probe (ADR 0067), feeds it once, through the inbox like a message, so a restarted follower replaying the stream
 * finds it already fed. Run at the live edge, after each chunk of the stream.
 */
export const feedCloser = (
  transport: WorkerTransportShape,
  record: SessionRecord,
  parser: StreamParser
): Effect.Effect<void, TransportError> => {
  let closed: boolean | undefined
  const files = sessionFiles(record.attemptDir)
  return Effect.gen(function* () {
    const idle = parser.idle
    if (record.stdin !== "feed" || idle === undefined) return
    const probe = parser.idleProbe?.()
    if (!idle() && probe === undefined && closed === false) return
    const inbox = yield* transport.listDirectory(files.inbox)
    closed ??= inbox.includes("close")
    const fed = (yield* transport.listDirectory(files.fed)).filter((name) => name.endsWith(".msg"))
    if (probe !== undefined && ![...inbox, ...fed].some((name) => name.endsWith(".msg") && idOfMessageFile(name) === probe.id)) {
      yield* feedLine(transport, files.inbox, probe)
    }
    const waiting = inbox.some((name) => name.endsWith(".msg"))
    const answered = parser.answered?.() ?? new Set<string>()
    const done = idle() && !waiting && fed.every((name) => answered.has(idOfMessageFile(name)))
    if (done && !closed) {
      yield* transport.writeFile(files.close, "")
      closed = true
    } else if (!done && closed) {
      yield* transport.remove(files.close)
      closed = false
    }
  })
}
