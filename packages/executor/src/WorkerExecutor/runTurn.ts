import { Chunk, Clock, Effect, Either, Option, Schema, Stream } from "effect"
import * as path from "node:path/posix"
import { type AttemptFailure, DefectFailure, InfraFailure, RunawayFailure } from "@usine/core/attempt/failure"
import { modelProviderOf } from "@usine/core/config/AgentConfig"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { agentEnvironment } from "../AgentEnvironment"
import { PROXY_PLACEHOLDER_KEY } from "../ModelProxy"
import { encodeHandle, type SessionRecord } from "../DurableSession/SessionRecord"
import { channelOf, type StreamParser } from "../harness/Harness"
import { inboxPath } from "../Intervention"
import type { SessionRanAway, SessionStalled, SessionVanished } from "../DurableSession/SessionFailures"
import type { TransportError } from "../WorkerTransport"
import { OperatorEntry, TurnEndEntry, type TurnEntry } from "./AttemptJournal"
import { type AttemptContext, HARNESS_FILE, operatorDir, turnDir, turnSession } from "./AttemptContext"
import { OperatorMessage } from "./OperatorMessage"
import { feedCloser } from "./feedCloser"
import { agentSandbox } from "./attemptSandbox"
import { journalRows } from "./journalRows"
import type { ModelTunnelLost } from "./proxyTunnel"
import { withStderrTail } from "./stderrTail"

const isTransportError = (error: { readonly _tag: string }): error is TransportError =>
  error._tag === "WorkerUnreachable" || error._tag === "HostOperationFailed" || error._tag === "HostCommandTimedOut"


/** What a turn's end means for the Attempt, with the tail of what the agent wrote on stderr; `undefined`: it ended well. */
const failureOf = (ctx: AttemptContext, dir: string, end: TurnEndEntry, parser: StreamParser) =>
  withStderrTail(ctx, dir, streamFailureOf(ctx, end, parser))

/** What a turn's end means for the Attempt, read from its stream and its exit; `undefined`: the agent ended well. */
const streamFailureOf = (ctx: AttemptContext, end: TurnEndEntry, parser: StreamParser): AttemptFailure | undefined => {
  const evidence = parser.lastError?.() ?? ""
  switch (end.limit) {
    case "stalled":
      return new InfraFailure({ reason: `the agent stalled: ${end.detail}`, evidence })
    case "runaway":
      return new RunawayFailure({ reason: `the agent ran away: ${end.detail}`, evidence, minutes: ctx.request.policy.maxAttemptMinutes ?? 0 })
    case "vanished":
      return new InfraFailure({ reason: `the agent's session was lost: ${end.detail}`, evidence })
    case "disconnected":
      return new InfraFailure({ reason: `the agent was cut off from its model: ${end.detail}`, evidence })
    case undefined:
      return ctx.harness.exitFailure(end.exitCode, end.signal, parser)
  }
}

const startTurn = (ctx: AttemptContext, turn: TurnEntry, dir: string) =>
  Effect.gen(function* () {
    const provider = modelProviderOf(ctx.agent, ctx.settings.daemonEnv)
    // Through the Attempt's model proxy the CLI holds a placeholder, never the provider's key (ADR 0086).
    const endpoint = provider === undefined || ctx.modelProxy === undefined
      ? provider
      : { baseUrl: ctx.modelProxy.baseUrl, model: provider.model, apiKey: PROXY_PLACEHOLDER_KEY }
    const invocation = yield* Effect.try({
      try: () =>
        ctx.harness.invocation({
          prompt: turn.prompt,
          model: ctx.request.run.model ?? ctx.agent.model,
          workdir: ctx.worktree,
          attemptDir: dir,
          command: ctx.agent.command,
          ...(endpoint === undefined ? {} : { modelProvider: endpoint })
        }),
      catch: (error) => new DefectFailure({ reason: `the ${ctx.harness.name} harness cannot start`, evidence: String(error) })
    })
    const { env } = agentEnvironment({
      daemonEnv: ctx.settings.daemonEnv,
      config: { grant: ctx.agent.env.inherit, set: ctx.agent.env.values },
      harness: { ...invocation.env, USINE_INBOX: inboxPath(dir) }
    })
    const started = yield* ctx.worker.sessions
      .start({
        attemptDir: dir,
        workdir: ctx.worktree,
        argv: invocation.argv,
        env,
        stdin: invocation.stdin,
        feedInbox: channelOf(ctx.harness)._tag === "Stdin",
        files: { ...invocation.files, [HARNESS_FILE]: ctx.harness.name },
        sandbox: agentSandbox(ctx, env, endpoint?.baseUrl)
      })
      .pipe(
        Effect.catchTag("SessionNotStarted", (error) =>
          Effect.fail(new DefectFailure({ reason: "the agent's session could not start", evidence: error.message }))
        )
      )
    return started.record
  })

/**
 * Runs one agent turn to its end, or follows it again after a restart: starts its session unless it already
 * started, then reads its stream from the first line through a fresh parser, so the rows (and the parser's idea
 * of failure) come out exactly as the first time; the cursor drops those already delivered. Operator messages
 * are placed at the line count where the follower first saw them, and replayed at that place. A turn that
 * already ended is read only up to the line count its end entry recorded.
 */
export const runTurn = Effect.fn("WorkerExecutor.runTurn")(function* (
  ctx: AttemptContext,
  turn: TurnEntry
): Effect.fn.Return<AttemptFailure | undefined, TransportError | DefectFailure> {
  const { cursor, journal, worker } = ctx
  const dir = turnDir(ctx.attemptDir, turn.turn)
  const ended = journal.find("turnEnd", (e) => e.turn === turn.turn)
  const parser = ctx.harness.parser()
  const stored = yield* turnSession(worker.transport, dir)
  if (Option.isNone(stored) && Option.isSome(ended)) {
    yield* cursor.emit(journalRows(ended.value))
    return yield* failureOf(ctx, dir, ended.value, parser)
  }
  const record: SessionRecord = Option.isSome(stored) ? stored.value : yield* startTurn(ctx, turn, dir)
  if (Option.isNone(ended)) yield* ctx.request.onSession(encodeHandle(record))

  let lines = 0
  const operatorAt = (line: number) =>
    journal.entries().filter((e): e is OperatorEntry => e._tag === "operator" && e.turn === turn.turn && e.afterLine === line)
  const placedAt = (line: number) => Effect.forEach(operatorAt(line), (entry) => cursor.emit(journalRows(entry)), { discard: true })
  // New messages are placed only at the live edge, never amid rows a replay still has to pass over.
  const placeNew = Effect.gen(function* () {
    if (cursor.replaying() || Option.isSome(ended)) return
    const known = new Set(journal.entries().flatMap((e) => (e._tag === "operator" ? [e.file] : [])))
    const files = (yield* worker.transport.listDirectory(operatorDir(ctx.attemptDir))).filter((f) => f.endsWith(".json") && !known.has(f))
    for (const file of files) {
      const bytes = yield* worker.transport.readFile(path.join(operatorDir(ctx.attemptDir), file))
      const message = Option.flatMap(bytes, (b) => Schema.decodeUnknownOption(OperatorMessage)(Buffer.from(b).toString("utf8")))
      if (Option.isNone(message)) continue
      const { at, note, text } = message.value
      const entry = new OperatorEntry({ at, text, ...(note === undefined ? {} : { note }), turn: turn.turn, afterLine: lines, file })
      yield* journal.append(entry)
      yield* cursor.emit(journalRows(entry))
    }
  })

  const settleFeed = feedCloser(worker.transport, record, parser)
  yield* placedAt(0)
  const elapsedAtStart = record.startedAt - ctx.request.attempt.startedAt
  const maxMinutes = ctx.request.policy.maxAttemptMinutes
  const stallMinutes = ctx.request.policy.stallMinutes
  const follow = worker.sessions.follow(record, {
    pollInterval: ctx.settings.pollInterval,
    isStallLine: ctx.harness.isStallLine,
    ...(ctx.request.policy.output === undefined ? {} : { maxLineBytes: ctx.request.policy.output.lineBytes }),
    ...(Option.isNone(ended) && stallMinutes !== undefined ? { stallMs: stallMinutes * 60_000 } : {}),
    ...(Option.isNone(ended) && maxMinutes !== undefined ? { maxAttemptMs: Math.max(1, maxMinutes * 60_000 - elapsedAtStart) } : {})
  })
  // A tunnel to the model proxy lost for good ends the turn (ADR 0097): the agent cannot reach its model any more.
  const followed = Option.isSome(ended)
    ? Stream.take(follow, ended.value.lines)
    : ctx.modelProxy === undefined ? follow : Stream.interruptWhen(follow, ctx.modelProxy.lost)
  const result = yield* followed.pipe(
    Stream.runForEachChunk((chunk) =>
      Effect.gen(function* () {
        const at = yield* Clock.currentTimeMillis
        // One delivery a chunk, not a line: a flood of lines is a few ledger writes, not one per line (ADR 0085).
        const rows: Array<TranscriptEntry> = []
        for (const line of Chunk.toReadonlyArray(chunk)) {
          lines += 1
          rows.push(...parser.line(line, at))
          if (operatorAt(lines).length === 0) continue
          yield* cursor.emit(rows.splice(0))
          yield* placedAt(lines)
        }
        yield* cursor.emit(rows)
        yield* placeNew
        if (!cursor.replaying() && Option.isNone(ended)) yield* settleFeed
      })
    ),
    Effect.either
  )
  if (Either.isLeft(result) && isTransportError(result.left)) return yield* result.left
  if (Option.isSome(ended)) {
    // A replay that read fewer lines than the first pass would misplace every later row.
    if (lines < ended.value.lines) {
      return yield* new DefectFailure({ reason: `the stream of agent turn ${turn.turn} is shorter than recorded`, evidence: dir })
    }
    yield* cursor.emit(journalRows(ended.value))
    return yield* failureOf(ctx, dir, ended.value, parser)
  }

  const at = yield* Clock.currentTimeMillis
  const stop = worker.sessions.stop(record, { graceMs: ctx.settings.stopGraceMs }).pipe(
    Effect.catchTag("SessionSurvivedKill", (error) => Effect.logWarning("agent processes survived SIGKILL", error.message))
  )
  let end: TurnEndEntry
  if (Either.isLeft(result)) {
    const error = result.left as SessionStalled | SessionRanAway | SessionVanished | ModelTunnelLost
    if (error._tag !== "SessionVanished") yield* stop
    const limit = error._tag === "SessionStalled"
      ? "stalled"
      : error._tag === "SessionRanAway"
      ? "runaway"
      : error._tag === "ModelTunnelLost"
      ? "disconnected"
      : "vanished"
    end = new TurnEndEntry({ at, turn: turn.turn, lines, exitCode: null, signal: null, limit, detail: error.message })
  } else {
    yield* placeNew
    const status = yield* worker.sessions.status(record)
    // The agent is done; whatever it left running in its group must not touch the worktree during verify.
    yield* stop
    end =
      status._tag === "Exited"
        ? new TurnEndEntry({ at, turn: turn.turn, lines, exitCode: status.exitCode, signal: status.signal })
        : new TurnEndEntry({ at, turn: turn.turn, lines, exitCode: null, signal: null, limit: "vanished", detail: "no exit status" })
  }
  yield* journal.append(end)
  yield* cursor.emit(journalRows(end))
  return yield* failureOf(ctx, dir, end, parser)
})
