import { Chunk, Clock, Duration, Effect, Option, Stream } from "effect"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { breachedLimit, type SessionLimits } from "./breachedLimit"
import { SessionVanished, type SessionRanAway, type SessionStalled } from "./SessionFailures"
import type { SessionRecord } from "./SessionRecord"
import { sessionFiles } from "./sessionFiles"
import { sessionStatus } from "./sessionStatus"
import { emptyLine, lineText, type PartialLine, splitLines } from "./streamLines"

/** The longest stream line read whole when the Loop does not say (`output.line_bytes`). */
const MAX_LINE_BYTES = 1024 * 1024

export interface FollowOptions extends SessionLimits {
  /** Complete lines a previous follower already delivered; they are read again and dropped. */
  readonly skipLines?: number
  /** How long to wait when the stream has nothing new. */
  readonly pollInterval?: Duration.DurationInput
  /** The most bytes read per poll. */
  readonly maxChunkBytes?: number
  /** The longest line read whole (1 MiB when absent): a longer one is cut and marked, never buffered whole. */
  readonly maxLineBytes?: number
  /** Lines that do not count as progress for the stall limit (a CLI that keeps printing "Reconnecting..."). */
  readonly isStallLine?: (line: string) => boolean
}

export type FollowError = SessionStalled | SessionRanAway | SessionVanished | TransportError

interface State {
  readonly offset: number
  /** Bytes after the last newline: a line still being written, up to the line cap. */
  readonly partial: PartialLine
  readonly skip: number
  readonly lastProgressAt: number
  readonly end: "open" | "done" | "vanished"
  /** Empty reads since the last bytes: the wait grows with it, up to `pollInterval`. */
  readonly idleReads: number
}

/** The first wait after bytes arrived; it doubles on each empty read up to `pollInterval`. */
const FIRST_WAIT_MS = 25

/**
 * The lines of a session's stream file, from line `skipLines` on, until the session's exit status is written
 * and the file is drained. A line is delivered only once its newline is written, except a last line without
 * one after the exit. Counting complete lines is what lets a reattaching follower resume with no gap and no
 * repeat. The stream fails when the session vanishes, stalls or runs away; it never stops the session.
 */
export const followSession = (
  transport: WorkerTransportShape,
  record: SessionRecord,
  options: FollowOptions = {}
): Stream.Stream<string, FollowError> => {
  const files = sessionFiles(record.attemptDir)
  const pollInterval = Duration.decode(options.pollInterval ?? "200 millis")
  const maxBytes = options.maxChunkBytes ?? 1024 * 1024
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES
  const isStallLine = options.isStallLine ?? (() => false)

  const take = (state: State, lines: ReadonlyArray<string>, now: number) => {
    const skipped = Math.min(state.skip, lines.length)
    const delivered = lines.slice(skipped)
    const progressed = delivered.some((line) => !isStallLine(line))
    return {
      delivered,
      state: { ...state, skip: state.skip - skipped, lastProgressAt: progressed ? now : state.lastProgressAt }
    }
  }

  const read = (state: State) =>
    transport
      .readFile(files.stream, { offset: state.offset, maxBytes })
      .pipe(Effect.map(Option.getOrElse(() => new Uint8Array(0))))

  const pull = (state: State): Effect.Effect<Option.Option<readonly [Chunk.Chunk<string>, State]>, FollowError> =>
    Effect.gen(function* () {
      if (state.end === "done") return Option.none()
      if (state.end === "vanished") return yield* new SessionVanished({ attemptDir: record.attemptDir })
      const breach = breachedLimit({
        attemptDir: record.attemptDir,
        now: yield* Clock.currentTimeMillis,
        startedAt: record.startedAt,
        lastProgressAt: state.lastProgressAt,
        limits: options
      })
      // A session that already ended on its own is drained, however old it is.
      if (Option.isSome(breach) && (yield* sessionStatus(transport, record))._tag === "Running") {
        return yield* breach.value
      }
      let bytes = yield* read(state)
      if (bytes.length === 0) {
        const status = yield* sessionStatus(transport, record)
        if (status._tag !== "Running") {
          // The agent may have written between the read and its exit.
          bytes = yield* read(state)
          if (bytes.length === 0) {
            const now = yield* Clock.currentTimeMillis
            const last = state.partial.bytes.length > 0 || state.partial.cut > 0 ? [lineText(state.partial)] : []
            const { delivered, state: next } = take(state, last, now)
            const end = status._tag === "Exited" ? "done" : "vanished"
            return Option.some([Chunk.fromIterable(delivered), { ...next, partial: emptyLine, end }] as const)
          }
        }
      }
      const now = yield* Clock.currentTimeMillis
      let next = state
      if (bytes.length > 0) {
        const { lines, rest } = splitLines(state.partial, bytes, maxLineBytes)
        const taken = take(state, lines, now)
        next = { ...taken.state, offset: state.offset + bytes.length, partial: rest, idleReads: 0 }
        if (taken.delivered.length > 0) return Option.some([Chunk.fromIterable(taken.delivered), next] as const)
      }
      // An agent that just wrote, or just started, often exits moments later: look again soon, then back off. A
      // short Attempt is not held a whole pollInterval after its end; a silent one is back to pollInterval in a second.
      const wait = Math.min(Duration.toMillis(pollInterval), FIRST_WAIT_MS * 2 ** Math.min(next.idleReads, 16))
      if (bytes.length < maxBytes) yield* Effect.sleep(wait)
      // An empty chunk, not a recursive call: a silent session polls for hours without growing the stack.
      return Option.some([Chunk.empty<string>(), { ...next, idleReads: next.idleReads + 1 }] as const)
    })

  return Stream.unwrap(
    Clock.currentTimeMillis.pipe(
      Effect.map((now) =>
        Stream.unfoldChunkEffect<State, string, FollowError, never>(
          { offset: 0, partial: emptyLine, skip: options.skipLines ?? 0, lastProgressAt: now, end: "open", idleReads: 0 },
          pull
        )
      )
    )
  )
}
