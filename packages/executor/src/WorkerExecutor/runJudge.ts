import { Chunk, Clock, Effect, Option, Schema, Stream } from "effect"
import * as path from "node:path/posix"
import { InfraFailure } from "@usine/core/attempt/failure"
import { type AgentConfig, modelProviderOf } from "@usine/core/config/AgentConfig"
import { boundPatch } from "@usine/core/attempt/Review"
import { agentEnvironment } from "../AgentEnvironment"
import { collectWork } from "../Harvest"
import { harnessFor } from "../harness/harnessFor"
import type { TransportError } from "../WorkerTransport"
import type { BeginEntry } from "./AttemptJournal"
import { type AttemptContext, gitOfAttempt, turnSession } from "./AttemptContext"
import { agentSandbox } from "./attemptSandbox"
import { sessionModelProxy } from "./attemptModelProxy"
import { PROXY_PLACEHOLDER_KEY } from "../ModelProxy"
import { judgePrompt, type JudgeVerdict } from "./judgeVerdict"
import { parseVerdict } from "./judgeVerdict"

/** The judge named by the Loop, with its Agent's settings. */
export interface Judge {
  readonly name: string
  readonly agent: AgentConfig
}

const VerdictFile = Schema.parseJson(Schema.Struct({ verdict: Schema.Literal("pass", "feedback"), reasoning: Schema.String, at: Schema.Number }))

/** Round N's judge folder, inside the Attempt's folder: its stream, its prompt, its empty working folder, its verdict. */
const judgeDir = (attemptDir: string, round: number): string => path.join(attemptDir, `judge-${round}`)

/** The transcript rows of a verdict: they depend on the verdict alone, so a replay emits them identically. */
const verdictRows = (judge: string, verdict: JudgeVerdict, at: number) => [
  { kind: "system" as const, text: `judge ${judge}: ${verdict.verdict}${verdict.reasoning === "" ? "" : `\n${verdict.reasoning}`}`, at }
]

/**
 * Round N's judge (ADR 0063): the Agent named by `judge:` reads the task, the diff (computed in the daemon's harvest
 * repository) and the verify output, in a sandbox of its own with an empty working folder (the worktree is not
 * there), and answers with a `VERDICT:` line. Its verdict is kept in the round's folder: a replay reads it again
 * rather than asking twice, and a judge interrupted by a restart is followed again from its stream.
 */
export const runJudge = Effect.fn("WorkerExecutor.runJudge")(function* (
  ctx: AttemptContext,
  judge: Judge,
  input: { readonly round: number; readonly begin: BeginEntry; readonly verify: string }
): Effect.fn.Return<JudgeVerdict, InfraFailure | TransportError> {
  const { worker } = ctx
  const dir = judgeDir(ctx.attemptDir, input.round)
  const file = path.join(dir, "verdict.json")
  const stored = Option.flatMap(yield* worker.transport.readFile(file), (bytes) =>
    Schema.decodeUnknownOption(VerdictFile)(Buffer.from(bytes).toString("utf8"))
  )
  if (Option.isSome(stored)) {
    yield* ctx.cursor.emit(verdictRows(judge.name, stored.value, stored.value.at))
    return stored.value
  }
  const harness = harnessFor(judge.agent.harness)
  const workdir = path.join(dir, "work")
  const parser = harness.parser()
  // The judge's own model proxy (ADR 0086): its key stays in the daemon; its usage counts toward the Run only when the
  // Attempt's own is metered.
  const lines = yield* Effect.scoped(Effect.gen(function* () {
    const proxy = yield* sessionModelProxy({
      settings: ctx.settings,
      worker,
      agent: judge.agent,
      dir,
      onMetered: ctx.modelProxy === undefined ? undefined : ctx.request.onMeteredUsage
    }).pipe(
      Effect.catchTag("ModelProxyNotStarted", (error) =>
        Effect.fail(new InfraFailure({ reason: `the judge ${judge.name}'s model proxy could not start`, evidence: error.message })))
    )
    const started = yield* turnSession(worker.transport, dir)
    const record = Option.isSome(started) ? started.value : yield* Effect.gen(function* () {
      const git = gitOfAttempt(ctx)
      const work = yield* collectWork({ git, begin: input.begin, message: `judge round ${input.round}` })
      const diff = work.commits.length === 0 ? "" : yield* git.diff(work.base, work.head)
      const prompt = judgePrompt({
        task: ctx.request.run.task,
        diff: boundPatch(ctx.settings.redactor.redact(diff)).text,
        verify: input.verify
      })
      yield* worker.transport.makeDirectory(workdir)
      const configured = modelProviderOf(judge.agent, ctx.settings.daemonEnv)
      const provider = configured === undefined || proxy === undefined
        ? configured
        : { baseUrl: proxy.baseUrl, model: configured.model, apiKey: PROXY_PLACEHOLDER_KEY }
      const invocation = harness.invocation({
        prompt,
        model: judge.agent.model,
        workdir,
        attemptDir: dir,
        command: judge.agent.command,
        ...(provider === undefined ? {} : { modelProvider: provider })
      })
      const { env } = agentEnvironment({
        daemonEnv: ctx.settings.daemonEnv,
        config: { grant: judge.agent.env.inherit, set: judge.agent.env.values },
        harness: invocation.env
      })
      const session = yield* worker.sessions.start({
        attemptDir: dir,
        workdir,
        argv: invocation.argv,
        env,
        stdin: invocation.stdin,
        files: invocation.files,
        sandbox: agentSandbox({ ...ctx, worktree: workdir, agent: judge.agent, harness }, env, provider?.baseUrl)
      })
      return session.record
    }).pipe(
      Effect.catchTags({
        GitCommandFailed: (error) => Effect.fail(new InfraFailure({ reason: "the judge's diff could not be computed", evidence: error.message })),
        AgentWorkUnreadable: (error) => Effect.fail(new InfraFailure({ reason: `the judge's diff: ${error.reason}`, evidence: "" })),
        SessionNotStarted: (error) => Effect.fail(new InfraFailure({ reason: `the judge ${judge.name} could not start`, evidence: error.message }))
      }),
      Effect.catchAllDefect((defect) => Effect.fail(new InfraFailure({ reason: `the judge ${judge.name} could not start`, evidence: String(defect) })))
    )
    const follow = worker.sessions.follow(record, { pollInterval: ctx.settings.pollInterval })
    const followed = yield* (proxy === undefined ? follow : Stream.interruptWhen(follow, proxy.lost)).pipe(
      Stream.runCollect,
      Effect.map(Chunk.toReadonlyArray),
      Effect.catchTags({
        SessionStalled: (error) => Effect.fail(new InfraFailure({ reason: `the judge ${judge.name} stalled`, evidence: error.message })),
        SessionRanAway: (error) => Effect.fail(new InfraFailure({ reason: `the judge ${judge.name} ran away`, evidence: error.message })),
        SessionVanished: (error) => Effect.fail(new InfraFailure({ reason: `the judge ${judge.name}'s session was lost`, evidence: error.message })),
        // The judge cannot reach its model any more (ADR 0097): it is stopped, and the round fails as infrastructure.
        ModelTunnelLost: (error) =>
          worker.sessions.stop(record, { graceMs: ctx.settings.stopGraceMs }).pipe(
            Effect.ignore,
            Effect.zipRight(Effect.fail(new InfraFailure({ reason: `the judge ${judge.name} was cut off from its model: ${error.message}`, evidence: "" })))
          )
      })
    )
    yield* worker.sessions.stop(record, { graceMs: ctx.settings.stopGraceMs }).pipe(Effect.ignore)
    if (proxy !== undefined) yield* proxy.flush
    return followed
  }))
  const at = yield* Clock.currentTimeMillis
  const said = lines
    .flatMap((line) => parser.line(line, at))
    .filter((entry) => entry.kind === "assistant")
    .map((entry) => entry.text)
    .join("\n")
  const verdict = parseVerdict(ctx.settings.redactor.redact(said))
  yield* worker.transport.writeFile(file, Schema.encodeSync(VerdictFile)({ ...verdict, at }))
  yield* ctx.cursor.emit(verdictRows(judge.name, verdict, at))
  return verdict
})
