import { Clock, Duration, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as path from "node:path/posix"
import { SessionGone } from "@usine/engine/Executor"
import type { Delivery } from "@usine/engine/Delivery"
import type { SessionRecord } from "./DurableSession/SessionRecord"
import { sessionFiles } from "./DurableSession/sessionFiles"
import { sessionStatus } from "./DurableSession/sessionStatus"
import type { InterventionChannel, MessageAnswer } from "./harness/Harness"
import { HostOperationFailed, type TransportError, type WorkerTransportShape } from "./WorkerTransport"

/** The folder an agent without open stdin reads operator messages from; the agent's env names it `USINE_INBOX`. */
export const inboxPath = (attemptDir: string): string => sessionFiles(attemptDir).inbox

/** How long Intervene waits for the CLI's answer before it reports the message queued: the feeder polls each second. */
const ANSWER_WAIT = Duration.seconds(6)

interface InterventionRequest {
  readonly attemptId: string
  readonly record: SessionRecord
  readonly message: string
  /** The harness's way in (ADR 0062). */
  readonly channel: InterventionChannel
  /** How long to wait for the CLI's answer; `ANSWER_WAIT` by default. */
  readonly answerWait?: Duration.DurationInput
}

interface Intervened {
  readonly delivery: Delivery
  /** Clock milliseconds when the message was handed over (or refused). */
  readonly at: number
}

const plainLine = (message: string) => (message.endsWith("\n") ? message : `${message}\n`)

/** A message's id: a UUID, which every CLI takes as a command's or a message's own id. */
const messageId = (): string => randomUUID()

/** The feeder takes messages in name order: the time first, then the id (`feedCloser` reads it back). */
export const messageFile = (at: number, id: string): string => `${String(at).padStart(15, "0")}-${id}.msg`

/** The id inside a message file's name. */
export const idOfMessageFile = (name: string): string => name.replace(/^\d+-/, "").replace(/\.msg$/, "")

const run = (transport: WorkerTransportShape, argv: ReadonlyArray<string>) =>
  transport.exec({ argv, timeoutMs: 30_000 }).pipe(
    Effect.flatMap((result) =>
      result.exitCode <= 1
        ? Effect.succeed(result)
        : Effect.fail(new HostOperationFailed({ host: transport.host, operation: argv.join(" "), detail: result.stderr.trim() }))
    )
  )

/**
 * The CLI's answer to message `id` (with `text`) in the session's stream, if it came: an answer that queued it becomes
 * `Accepted` once a later line shows the text taken into the conversation (ADR 0093). A stream the wrapper has not
 * created yet holds no answer: `grep -s` says so with exit status 2 and nothing on stderr.
 */
const answerIn = (
  transport: WorkerTransportShape,
  record: SessionRecord,
  channel: Extract<InterventionChannel, { _tag: "Stdin" }>,
  id: string,
  text: string
) =>
  transport
    .exec({
      argv: ["grep", "-sF", ...(channel.taken === undefined ? [] : ["-e", channel.taken.marker]), "-e", id, "--", sessionFiles(record.attemptDir).stream],
      timeoutMs: 30_000
    })
    .pipe(
      Effect.flatMap((result) =>
        result.exitCode <= 1 || (result.exitCode === 2 && result.stderr.trim() === "")
          ? Effect.succeed(result)
          : Effect.fail(new HostOperationFailed({ host: transport.host, operation: `grep ${id}`, detail: result.stderr.trim() }))
      ),
      Effect.map((result) => {
        const lines = result.stdout.split("\n")
        const at = lines.findIndex((line) => channel.answer(line, id) !== undefined)
        const answer = lines[at] === undefined ? undefined : channel.answer(lines[at], id)
        const taken = channel.taken
        if (answer?._tag !== "Queued" || taken === undefined) return Option.fromNullable(answer)
        const inConversation = lines.slice(at + 1).some((line) => taken.shows(line, text))
        return Option.some<MessageAnswer>(inConversation ? { _tag: "Accepted", detail: taken.detail } : answer)
      })
    )

/** Whether the CLI's answer is its last word on the message: anything but a queue it may still take it from. */
const settled = (answer: Option.Option<MessageAnswer>) => Option.isSome(answer) && answer.value._tag !== "Queued"

/**
 * Writes the message where the wrapper's feeder takes it (a dot name, renamed whole), then waits for the CLI's answer
 * and, for a CLI that queues it, for the message to be in its conversation. A message the feeder never took because the
 * session ended meanwhile is taken back and refused: no later turn of that session will read it.
 */
const feed = (
  transport: WorkerTransportShape,
  request: InterventionRequest,
  channel: Extract<InterventionChannel, { _tag: "Stdin" }>,
  at: number
) =>
  Effect.gen(function* () {
    const files = sessionFiles(request.record.attemptDir)
    const id = messageId()
    const file = messageFile(at, id)
    const staged = path.join(files.inbox, `.${file}.tmp`)
    yield* transport.writeFile(staged, channel.message(request.message, id, { attemptDir: request.record.attemptDir }), { mode: 0o600 })
    yield* run(transport, ["mv", "-f", staged, path.join(files.inbox, file)])
    let last = Option.none<MessageAnswer>()
    yield* answerIn(transport, request.record, channel, id, request.message).pipe(
      Effect.tap((found) => {
        last = found
        return settled(found) ? Effect.void : Effect.sleep("250 millis")
      }),
      Effect.repeat({ until: settled }),
      Effect.timeoutOption(request.answerWait ?? ANSWER_WAIT)
    )
    if (Option.isSome(last)) {
      const answer = last.value
      return answer._tag === "Accepted"
        ? ({ status: "delivered", detail: answer.detail } as const)
        : answer._tag === "Queued"
        ? ({ status: "queued", detail: answer.detail } as const)
        : ({ status: "refused", detail: answer.reason } as const)
    }
    const waiting = (yield* transport.listDirectory(files.inbox)).includes(file)
    if (waiting && (yield* sessionStatus(transport, request.record))._tag !== "Running") {
      // Nothing feeds an ended session: take the message back unless the feeder took it at the last moment.
      const taken = yield* transport.exec({ argv: ["mv", "-f", path.join(files.inbox, file), path.join(files.inbox, `.${file}.withdrawn`)], timeoutMs: 30_000 })
      if (taken.exitCode === 0) {
        return { status: "refused", detail: "the agent had finished: its session ended before it could read the message" } as const
      }
    }
    return {
      status: "queued",
      detail: waiting
        ? "queued for the next turn: it waits in the session's input feed, not yet written to the agent"
        : "queued for the next turn: written to the agent's input, not yet acknowledged by it"
    } as const
  })

/**
 * Hands an operator message to a live session by the harness's channel (ADR 0062) and says what became of it: fed to
 * the CLI's stdin by the session's wrapper and `delivered` once the CLI answered it, else `queued`; dropped into the
 * inbox of a `command` agent (`queued in $USINE_INBOX`); `refused` when the harness has no channel. Sessions recorded
 * with an open `fifo` stdin get the message written to it.
 */
export const intervene = Effect.fn("Intervention.intervene")(function* (
  transport: WorkerTransportShape,
  request: InterventionRequest
): Effect.fn.Return<Intervened, SessionGone | TransportError> {
  const gone = new SessionGone({ attemptId: request.attemptId })
  if ((yield* sessionStatus(transport, request.record))._tag !== "Running") return yield* gone
  const at = yield* Clock.currentTimeMillis
  const files = sessionFiles(request.record.attemptDir)
  const { channel, record } = request
  if (record.stdin === "feed" && channel._tag === "Stdin") return { delivery: yield* feed(transport, request, channel, at), at }
  if (record.stdin === "fifo") {
    const written = yield* transport.appendFile(files.fifo, plainLine(request.message))
    if (!written) return yield* gone
    return { delivery: { status: "queued", detail: "written to the agent's open stdin; it does not acknowledge messages" }, at }
  }
  if (channel._tag === "None") return { delivery: { status: "refused", detail: channel.reason }, at }
  if (channel._tag === "Stdin") {
    return { delivery: { status: "refused", detail: "this session was started without an input feed" }, at }
  }
  const existing = yield* transport.listDirectory(files.inbox)
  const next = existing.filter((name) => /^\d+\.md$/.test(name)).length + 1
  const file = path.join(files.inbox, `${String(next).padStart(4, "0")}.md`)
  yield* transport.writeFile(file, request.message)
  return { delivery: { status: "queued", detail: `queued in $USINE_INBOX (${file}): the agent reads it if it looks` }, at }
})
