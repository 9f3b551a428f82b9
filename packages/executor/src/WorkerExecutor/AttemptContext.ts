import { type Duration, Effect, Either, Option, type Schedule, Schema } from "effect"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import * as path from "node:path/posix"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { AttemptRequest } from "@usine/engine/Executor"
import { SessionRecord } from "../DurableSession/SessionRecord"
import { sessionFiles } from "../DurableSession/sessionFiles"
import type { Harness } from "../harness/Harness"
import { attemptGit, harvestRepoOf } from "../Harvest/attemptGit"
import type { CommitIdentity } from "../Harvest/CommitIdentity"
import type { PullRequests } from "@usine/github/PullRequests"
import type { RedactorService } from "@usine/core/text/Redactor"
import type { WorkerTransportShape } from "../WorkerTransport"
import { mirrorFolderName } from "../Workspace/WorkspacePaths"
import { startRepoOf } from "../Workspace/startRepo"
import type { AttemptJournal } from "./AttemptJournal"
import type { ExecutorWorker } from "./ExecutorWorker"
import type { ModelTunnelLost } from "./proxyTunnel"
import type { TranscriptCursor } from "./TranscriptCursor"

/** What every Attempt of this executor shares. */
export interface ExecutorSettings {
  readonly token: GitHubCredential
  /** Who the Attempts' commits are by; `AGENT_IDENTITY` when undefined. */
  readonly identity: CommitIdentity | undefined
  readonly redactor: RedactorService
  readonly daemonEnv: Readonly<Record<string, string | undefined>>
  readonly cloneUrl: (repository: string) => string
  readonly pollInterval: Duration.DurationInput
  readonly verifyTimeoutMs: number
  readonly stopGraceMs: number
  readonly pullRequests: PullRequests["Type"]
  /** How a harvest that failed on GitHub (an InfraFailure) is retried in place before the Attempt fails. */
  readonly harvestRetryPolicy: Schedule.Schedule<unknown>
}

/** One Attempt being executed or followed again. */
export interface AttemptContext {
  readonly settings: ExecutorSettings
  readonly worker: ExecutorWorker
  readonly request: AttemptRequest
  readonly agent: AgentConfig
  readonly harness: Harness
  readonly attemptDir: string
  readonly worktree: string
  readonly journal: AttemptJournal
  readonly cursor: TranscriptCursor
  /**
   * The Attempt's model proxy (ADR 0086): the CLI's base URL when its Agent has a `provider`; `lost` fails when the
   * tunnel that carries it to a Worker on another host closed for good (ADR 0097), and never completes otherwise.
   */
  readonly modelProxy?: { readonly baseUrl: string; readonly lost: Effect.Effect<never, ModelTunnelLost> }
}

/** Turn N's own folder (stream, exit status, stdin, inbox, harness files), inside the Attempt's folder. */
export const turnDir = (attemptDir: string, turn: number): string => path.join(attemptDir, `turn-${turn}`)

/** A turn folder's file naming the harness its session was started with: Intervene picks its channel by it. */
export const HARNESS_FILE = "harness"

/** Where `intervene` drops operator messages for the follower to place in the transcript. */
export const operatorDir = (attemptDir: string): string => path.join(attemptDir, "operator")

/** The daemon's git for an Attempt: its mirror, its harvest repository, the agent's worktree read as data. */
export const gitOf = (ctx: {
  readonly worker: ExecutorWorker
  readonly settings: ExecutorSettings
  readonly repository: string
  /** The mirror's path when a record names it; else the Worker root's mirror of the repository. */
  readonly mirror?: string
  readonly attemptDir: string
  readonly worktree: string
}) =>
  attemptGit({
    transport: ctx.worker.transport,
    root: ctx.worker.workspace.root,
    mirror:
      ctx.mirror ??
      path.join(
        ctx.worker.workspace.root,
        "mirrors",
        Either.getOrThrowWith(mirrorFolderName(ctx.repository), (error) => new Error(error.message))
      ),
    start: startRepoOf(ctx.attemptDir),
    worktree: ctx.worktree,
    harvestRepo: harvestRepoOf(ctx.worker.workspace.root, ctx.attemptDir),
    cloneUrl: ctx.settings.cloneUrl(ctx.repository),
    token: ctx.settings.token,
    ...(ctx.settings.identity === undefined ? {} : { identity: ctx.settings.identity })
  })

/** The session record of a turn, if its session was started. */
export const turnSession = (transport: WorkerTransportShape, dir: string) =>
  transport
    .readFile(sessionFiles(dir).session)
    .pipe(
      Effect.map(
        Option.flatMap((bytes) => Schema.decodeUnknownOption(Schema.parseJson(SessionRecord))(Buffer.from(bytes).toString("utf8")))
      )
    )

/** Every turn (and judge) folder of an Attempt that holds a session, newest first. */
export const turnSessions = (transport: WorkerTransportShape, attemptDir: string) =>
  Effect.gen(function* () {
    // A judge's folder holds a session too (ADR 0063): a canceled Attempt stops it with the agent's.
    const names = (yield* transport.listDirectory(attemptDir)).filter((name) => /^(turn|judge)-\d+$/.test(name))
    const numberOf = (name: string) => Number(name.slice(name.indexOf("-") + 1))
    names.sort((a, b) => numberOf(b) - numberOf(a))
    const records = yield* Effect.forEach(names, (name) => turnSession(transport, path.join(attemptDir, name)))
    return records.flatMap(Option.toArray)
  })

/** The daemon's git for the Attempt in hand. */
export const gitOfAttempt = (ctx: AttemptContext) =>
  gitOf({ worker: ctx.worker, settings: ctx.settings, repository: ctx.request.run.repository, attemptDir: ctx.attemptDir, worktree: ctx.worktree })
