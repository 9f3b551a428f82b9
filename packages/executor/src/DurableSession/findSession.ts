import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { parseProcStat } from "../ProcStat"
import { HostOperationFailed, type TransportError, type WorkerTransportShape } from "../WorkerTransport"
import { encodeHandle, SessionRecord } from "./SessionRecord"
import { claimName, sessionFiles } from "./sessionFiles"

/** What `startSession` writes before it spawns (ADR 0048): the claim its wrapper takes, and the rest of the record. */
export class SessionStart extends Schema.Class<SessionStart>("SessionStart")({
  /** Counts the starts tried in this folder; names the claim file. */
  generation: Schema.Number,
  stdin: Schema.Literal("feed", "fifo", "file", "none"),
  startedAt: Schema.Number
}) {}

export const encodeSessionStart = Schema.encodeSync(Schema.parseJson(SessionStart))

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8")

const readJson = <A, I>(transport: WorkerTransportShape, file: string, schema: Schema.Schema<A, I>) =>
  transport
    .readFile(file)
    .pipe(Effect.map(Option.flatMap((bytes) => Schema.decodeUnknownOption(Schema.parseJson(schema))(text(bytes)))))

/** The folder's start marker, if a start was tried there. */
export const readSessionStart = (transport: WorkerTransportShape, attemptDir: string) =>
  readJson(transport, sessionFiles(attemptDir).starting, SessionStart)

/**
 * Settles a start that `starting` announces but `session.json` does not record (the daemon failed or died between
 * the spawn and the record). A wrapper that claimed the folder is adopted, running or ended, and recorded now; an
 * unclaimed start is fenced by creating its claim file first, so a wrapper still on its way exits before it runs
 * anything. `None` when nothing of an earlier start can run: the caller may start one.
 */
export const settleUnrecordedStart = (
  transport: WorkerTransportShape,
  attemptDir: string
): Effect.Effect<Option.Option<SessionRecord>, TransportError> =>
  Effect.gen(function* () {
    const start = yield* readSessionStart(transport, attemptDir)
    if (Option.isNone(start)) return Option.none()
    const claim = path.join(attemptDir, claimName(start.value.generation))
    let content = yield* transport.readFile(claim)
    if (Option.isNone(content)) {
      const fence = yield* transport.exec({ argv: ["sh", "-c", 'set -C; echo fenced >"$1"', "sh", claim], timeoutMs: 30_000 })
      if (fence.exitCode === 0) return Option.none()
      // The wrapper created it between the read and the fence.
      content = yield* transport.readFile(claim)
      if (Option.isNone(content)) {
        return yield* new HostOperationFailed({
          host: transport.host,
          operation: `fence ${claim}`,
          detail: fence.stderr.trim() || `exit ${fence.exitCode}`
        })
      }
    }
    const stat = parseProcStat(text(content.value))
    if (Option.isNone(stat)) return Option.none()
    const record = new SessionRecord({
      host: transport.host,
      pid: stat.value.pid,
      pgid: stat.value.pgid,
      startTime: stat.value.startTime,
      attemptDir,
      stdin: start.value.stdin,
      startedAt: start.value.startedAt
    })
    yield* transport.writeFile(sessionFiles(attemptDir).session, encodeHandle(record))
    yield* Effect.logWarning("adopted an agent session that was started but not recorded").pipe(
      Effect.annotateLogs({ attemptDir, pid: record.pid })
    )
    return Option.some(record)
  })

/** A folder's session: the one `session.json` records, or an unrecorded start settled now (adopted or fenced). */
export const findSession = (
  transport: WorkerTransportShape,
  attemptDir: string
): Effect.Effect<Option.Option<SessionRecord>, TransportError> =>
  readJson(transport, sessionFiles(attemptDir).session, SessionRecord).pipe(
    Effect.flatMap((recorded) => (Option.isSome(recorded) ? Effect.succeed(recorded) : settleUnrecordedStart(transport, attemptDir)))
  )
