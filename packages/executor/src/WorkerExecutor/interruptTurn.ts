import { Duration, Effect, Option } from "effect"
import type { SessionRecord } from "../DurableSession/SessionRecord"
import { sessionFiles } from "../DurableSession/sessionFiles"
import { sessionStatus } from "../DurableSession/sessionStatus"
import { HostOperationFailed, type WorkerTransportShape } from "../WorkerTransport"
import { feedLine } from "./feedLine"
import { turnHarness } from "./turnHarness"

/** How long a CLI asked to end its turn has before its session is stopped anyway. */
const INTERRUPT_WAIT = Duration.seconds(3)

/** What became of the request to end the turn in progress: which turn, and how it ended (`None`: not in time). */
export interface TurnInterrupted {
  readonly turnId: string
  readonly ended: Option.Option<string>
}

/** The lines of a session's stream that contain `marker` (none before the stream exists). */
const linesWith = (transport: WorkerTransportShape, stream: string, marker: string) =>
  transport.exec({ argv: ["grep", "-sF", "-e", marker, "--", stream], timeoutMs: 30_000 }).pipe(
    Effect.flatMap((result) =>
      result.exitCode <= 1 || (result.exitCode === 2 && result.stderr.trim() === "")
        ? Effect.succeed(result.stdout.split("\n"))
        : Effect.fail(new HostOperationFailed({ host: transport.host, operation: `grep ${stream}`, detail: result.stderr.trim() }))
    )
  )

/**
 * Asks a live session's CLI to end the turn in progress, by its harness's `interrupt` (ADR 0101: Codex's
 * `turn/interrupt`) fed through the session's inbox, and waits up to `wait` for its stream to show the turn ended.
 * `None` when there is nothing to ask: the session is not running or not fed, its harness cannot be asked, or no
 * turn is in progress. The caller stops the session afterwards, whatever the answer.
 */
export const interruptTurn = Effect.fn("WorkerExecutor.interruptTurn")(function* (
  transport: WorkerTransportShape,
  record: SessionRecord,
  wait: Duration.DurationInput = INTERRUPT_WAIT
) {
  if (record.stdin !== "feed") return Option.none<TurnInterrupted>()
  const interrupt = (yield* turnHarness(transport, record.attemptDir)).interrupt
  if (interrupt === undefined || (yield* sessionStatus(transport, record))._tag !== "Running") return Option.none<TurnInterrupted>()
  const files = sessionFiles(record.attemptDir)
  const turnLines = linesWith(transport, files.stream, interrupt.marker)
  const request = interrupt.request(yield* turnLines, record)
  if (request === undefined) return Option.none<TurnInterrupted>()
  // The feeder must still be reading: a `close` dropped while the CLI looked idle would end it first.
  yield* transport.remove(files.close)
  yield* feedLine(transport, files.inbox, request)
  const endedIn = (lines: ReadonlyArray<string>) =>
    Option.firstSomeOf(lines.map((line) => Option.fromNullable(interrupt.ended(line, request.turnId))))
  const ended = yield* turnLines.pipe(
    Effect.map(endedIn),
    Effect.tap((found) => (Option.isSome(found) ? Effect.void : Effect.sleep("100 millis"))),
    Effect.repeat({ until: Option.isSome }),
    Effect.timeoutOption(wait)
  )
  return Option.some<TurnInterrupted>({ turnId: request.turnId, ended: Option.flatten(ended) })
})
