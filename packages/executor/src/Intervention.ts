import { Clock, Effect } from "effect"
import * as path from "node:path/posix"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { SessionGone } from "@usine/engine/Executor"
import type { SessionRecord } from "./DurableSession/SessionRecord"
import { sessionFiles } from "./DurableSession/sessionFiles"
import { sessionStatus } from "./DurableSession/sessionStatus"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"

/** The folder an agent without open stdin reads operator messages from; the agent's env names it `USINE_INBOX`. */
export const inboxPath = (attemptDir: string): string => sessionFiles(attemptDir).inbox

export interface InterventionRequest {
  readonly attemptId: string
  readonly record: SessionRecord
  readonly message: string
  /** How the harness wants a message on stdin (a JSON user turn, say); a plain line by default. */
  readonly formatForStdin?: (message: string) => string
}

const plainLine = (message: string) => (message.endsWith("\n") ? message : `${message}\n`)

/**
 * Delivers an operator message to a live session: written to its stdin FIFO when it kept stdin open, else
 * dropped into its inbox as the next `NNNN.md`. Returns the `operator` transcript row for the engine to store.
 */
export const intervene = Effect.fn("Intervention.intervene")(function* (
  transport: WorkerTransportShape,
  request: InterventionRequest
): Effect.fn.Return<TranscriptEntry, SessionGone | TransportError> {
  const gone = new SessionGone({ attemptId: request.attemptId })
  if ((yield* sessionStatus(transport, request.record))._tag !== "Running") return yield* gone
  const files = sessionFiles(request.record.attemptDir)
  if (request.record.stdin === "fifo") {
    const delivered = yield* transport.appendFile(files.fifo, (request.formatForStdin ?? plainLine)(request.message))
    if (!delivered) return yield* gone
  } else {
    const existing = yield* transport.listDirectory(files.inbox)
    const next = existing.filter((name) => /^\d+\.md$/.test(name)).length + 1
    yield* transport.writeFile(path.join(files.inbox, `${String(next).padStart(4, "0")}.md`), request.message)
  }
  return { kind: "operator", text: request.message, at: yield* Clock.currentTimeMillis }
})
