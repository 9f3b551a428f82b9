import { Cause, Clock, type Duration, Effect, Exit, Fiber, FiberMap, Layer, Option, Redacted, Schedule } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure, type AttemptFailure, DefectFailure, InfraFailure } from "@usine/core/attempt/failure"
import { AttemptCanceled, AttemptFailed, type AttemptOutcome, type StepResult } from "@usine/core/attempt/outcome"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import { type AttemptRequest, Executor } from "@usine/engine/Executor"
import { harnessFor } from "./harness/harnessFor"
import { abandonAttempt } from "./WorkerExecutor/abandonAttempt"
import type { AttemptContext, ExecutorSettings } from "./WorkerExecutor/AttemptContext"
import { readJournal } from "./WorkerExecutor/AttemptJournal"
import { attemptIsLive } from "./WorkerExecutor/attemptIsLive"
import { AttemptLocator } from "./WorkerExecutor/AttemptLocator"
import { deliverIntervention } from "./WorkerExecutor/deliverIntervention"
import { driveAttempt } from "./WorkerExecutor/driveAttempt"
import { prepareAttempt } from "./WorkerExecutor/prepareAttempt"
import { recoverWorkerWorkspaces } from "./WorkerExecutor/recoverWorkerWorkspaces"
import { resumeAttempt } from "./WorkerExecutor/resumeAttempt"
import { salvageHeldWork } from "./WorkerExecutor/salvageHeldWork"
import { makeTranscriptCursor } from "./WorkerExecutor/TranscriptCursor"
import { attemptModelProxy } from "./WorkerExecutor/attemptModelProxy"
import { PullRequests } from "@usine/github/PullRequests"
import { makeRedactor, type RedactorService } from "@usine/core/text/Redactor"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import type { CommitIdentity } from "./Harvest/CommitIdentity"
import type { WorkerDirectory } from "./WorkerDirectory"

/** What the app hands the executor from usine.yaml and the environment; the executor reads no config itself. */
export interface WorkerExecutorOptions {
  /** The Agent by name, asked at each Attempt (a reload may add or change one, ADR 0077). */
  readonly agent: (name: string) => AgentConfig | undefined
  readonly workers: WorkerDirectory
  /** usine's GitHub token, or its App's current one: lent to git for fetch and push, never given to an agent. */
  readonly token: GitHubCredential
  /** Who the Attempts' commits are by (a GitHub App's bot); `AGENT_IDENTITY` by default. */
  readonly identity?: CommitIdentity
  /** The clone URL of `owner/name`, without credentials. */
  readonly cloneUrl: (repository: string) => string
  /** The daemon's environment, of which an agent sees only what its Agent grants; `process.env` by default. */
  readonly daemonEnv?: Readonly<Record<string, string | undefined>>
  readonly pollInterval?: Duration.DurationInput
  readonly verifyTimeoutMs?: number
  readonly stopGraceMs?: number
  /** The daemon's redactor; by default the built-in patterns and the token. */
  readonly redactor?: RedactorService
  /** `harvestRetryPolicy` by default; tests pass a short one. */
  readonly harvestRetryPolicy?: Schedule.Schedule<unknown>
}

/** A Worker that stops answering mid-Attempt gets this long to come back before the Attempt is an InfraFailure. */
const transportRetryPolicy = Schedule.exponential("1 second").pipe(Schedule.intersect(Schedule.recurs(4)))

/**
 * A harvest that fails on GitHub (5xx, unreachable, rate limited) is retried in place, so a verified change is not
 * redone by a new agent session: 5 more tries, 30 s doubling up to 3 min apart, about 9.5 min in all (ADR 0047).
 */
const harvestRetryPolicy: Schedule.Schedule<unknown> = Schedule.exponential("30 seconds").pipe(
  Schedule.union(Schedule.spaced("3 minutes")),
  Schedule.intersect(Schedule.recurs(5))
)

const failedWith = (failure: AttemptFailure) => new AttemptFailed({ failure })

/**
 * The executor port on Workers reached through a `WorkerTransport` (ADR 0023, 0024, 0025). `execute` prepares
 * the workspace, runs the agent as a durable session, verifies, harvests, and salvages a failure's work;
 * interrupting it only detaches. The Attempt's journal on the Worker makes every step resumable.
 */
export const make = (options: WorkerExecutorOptions) =>
  Effect.gen(function* () {
    const pullRequests = yield* PullRequests
    const settings: ExecutorSettings = {
      token: options.token,
      identity: options.identity,
      redactor: options.redactor ?? makeRedactor(Redacted.isRedacted(options.token) ? [Redacted.value(options.token)] : []),
      daemonEnv: options.daemonEnv ?? process.env,
      cloneUrl: options.cloneUrl,
      pollInterval: options.pollInterval ?? "500 millis",
      verifyTimeoutMs: options.verifyTimeoutMs ?? 20 * 60_000,
      stopGraceMs: options.stopGraceMs ?? 10_000,
      pullRequests,
      harvestRetryPolicy: options.harvestRetryPolicy ?? harvestRetryPolicy
    }
    const locator = yield* AttemptLocator.make(options.workers)
    const running = yield* FiberMap.make<AttemptId, AttemptOutcome>()

    const work = (request: AttemptRequest, workerName: string) =>
      Effect.gen(function* () {
        const { attempt, run } = request
        const agent = options.agent(run.agent)
        if (agent === undefined) return yield* new AgentFailure({ reason: `no Agent named ${run.agent} is configured`, evidence: "" })
        const harness = harnessFor(agent.harness)
        const worker = yield* locator.worker(workerName)
        const prepared = request.reattach
          ? yield* resumeAttempt(worker, attempt.id)
          : yield* prepareAttempt({ settings, worker, request, agent, harness })
        const cursor = makeTranscriptCursor({
          delivered: request.transcriptRowsStored,
          redactor: settings.redactor,
          deliver: request.onTranscript
        })
        const proxy = yield* attemptModelProxy({ settings, worker, request, agent, ...prepared }).pipe(
          // A session left running by an earlier daemon whose model cannot be had again is ended, its work salvaged.
          Effect.tapError((error) =>
            request.reattach && (error._tag === "InfraFailure" || error._tag === "ModelProxyNotStarted")
              ? abandonAttempt(settings, worker, prepared.attemptDir).pipe(
                Effect.zipRight(worker.workspace.remove(prepared.attemptDir)),
                Effect.ignoreLogged
              )
              : Effect.void
          )
        )
        const ctx: AttemptContext = {
          settings, worker, request, agent, harness, ...prepared, cursor,
          ...(proxy === undefined ? {} : { modelProxy: { baseUrl: proxy.baseUrl, lost: proxy.lost } })
        }
        const judgeName = request.policy.judge
        const judgeAgent = judgeName === undefined ? undefined : options.agent(judgeName)
        if (judgeName !== undefined && judgeAgent === undefined) {
          return yield* new AgentFailure({ reason: `no Agent named ${judgeName} is configured for the judge`, evidence: "" })
        }
        const judge = judgeName === undefined || judgeAgent === undefined ? undefined : { name: judgeName, agent: judgeAgent }
        const outcome = yield* driveAttempt(ctx, judge).pipe(
          Effect.retry(transportRetryPolicy),
          Effect.catchAll((error) =>
            Effect.succeed(failedWith(new InfraFailure({ reason: `the Worker ${workerName} failed: ${error.message}`, evidence: "" })))
          )
        )
        if (proxy !== undefined) yield* proxy.flush
        // Once the outcome is in the journal and the work is kept elsewhere the folder has served: `release` removes it
        // once the ledger has the outcome too (ADR 0110). A failed salvage leaves it for the next Attempt of the Run or
        // the next start to salvage again (ADR 0047).
        const ended = prepared.journal.find("outcome", () => true)
        if (Option.isSome(ended) && !ended.value.folderServed) {
          yield* Effect.logWarning("the Attempt's work could not be salvaged; its folder stays on the Worker").pipe(
            Effect.annotateLogs({ worker: workerName, attemptDir: prepared.attemptDir })
          )
        }
        return outcome
      }).pipe(
        Effect.scoped,
        Effect.catchAll((error) => {
          const failure: AttemptFailure =
            "category" in error ? error : new InfraFailure({ reason: error.message, evidence: "" })
          return Effect.flatMap(Clock.currentTimeMillis, (at) =>
            request.onTranscript([settings.redactor.redactEntry({ kind: "error", text: `${failure.message}\n${failure.evidence}`.trim(), at })])
          ).pipe(Effect.as(failedWith(failure)))
        }),
        Effect.annotateLogs({ runId: request.run.id, loop: request.run.loop, attemptId: request.attempt.id })
      )

    const execute = Effect.fn("WorkerExecutor.execute")(function* (request: AttemptRequest) {
      const workerName = request.reattach ? request.attempt.worker ?? request.worker : request.worker
      locator.place(request.attempt.id, workerName)
      const fiber = yield* FiberMap.run(running, request.attempt.id, work(request, workerName))
      const exit = yield* Fiber.await(fiber).pipe(
        // The engine detaches (drain, restart): the session runs on, only this follower stops.
        Effect.onInterrupt(() => FiberMap.remove(running, request.attempt.id))
      )
      if (Exit.isSuccess(exit)) return exit.value
      if (Cause.isInterruptedOnly(exit.cause)) return new AttemptCanceled({ reason: "canceled" })
      return failedWith(new DefectFailure({ reason: "the executor failed", evidence: Cause.pretty(exit.cause) }))
    })

    const cancel = Effect.fn("WorkerExecutor.cancel")(function* (attemptId: AttemptId) {
      yield* FiberMap.remove(running, attemptId)
      const found = yield* locator.find(attemptId)
      if (Option.isNone(found)) return Option.none<StepResult>()
      const { attemptDir, worker } = found.value
      // A harvest that stored its outcome before the cancel came: the engine records its pull request (ADR 0050).
      const harvested = yield* readJournal(worker.transport, attemptDir).pipe(
        Effect.map(Option.flatMap((entries) => Option.fromNullable(
          entries.flatMap((e) => (e._tag === "outcome" && e.outcome._tag === "Succeeded" ? [e.outcome.result] : []))[0]
        ))),
        Effect.orElseSucceed(() => Option.none<StepResult>())
      )
      yield* abandonAttempt(settings, worker, attemptDir).pipe(
        Effect.zipRight(worker.workspace.remove(attemptDir)),
        Effect.catchAll((error) =>
          Effect.logWarning("cancel could not salvage; the workspace stays for recovery").pipe(
            Effect.annotateLogs({ error: String(error) })
          )
        ),
        Effect.annotateLogs({ attemptId })
      )
      return harvested
    })

    /** The folder of an Attempt whose outcome the ledger holds, removed once its journal says the folder has served. */
    const release = (attempt: Attempt) =>
      Effect.gen(function* () {
        const found = yield* locator.find(attempt.id, attempt.worker)
        if (Option.isNone(found)) return
        const { attemptDir, worker } = found.value
        const entries = yield* readJournal(worker.transport, attemptDir)
        const served = Option.exists(entries, (all) => all.some((e) => e._tag === "outcome" && e.folderServed))
        if (served) yield* worker.workspace.remove(attemptDir)
      }).pipe(Effect.ignoreLogged, Effect.annotateLogs({ attemptId: attempt.id }))

    return Executor.of({
      isLive: (attempt: Attempt) => attemptIsLive(locator, attempt),
      execute,
      release,
      cancel,
      intervene: (attemptId, message) => deliverIntervention(locator, attemptId, message),
      salvageHeld: (run, held, attemptNumber) => salvageHeldWork(settings, locator, run, held, attemptNumber),
      recoverWorkspaces: (live) => recoverWorkerWorkspaces(settings, locator, live)
    })
  })

/** The executor as the engine's `Executor`, needing the pull requests port (`PullRequests.github`). */
export const layer = (options: WorkerExecutorOptions): Layer.Layer<Executor, never, PullRequests> => Layer.scoped(Executor, make(options))
