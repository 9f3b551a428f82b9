import { Clock, Effect, Option } from "effect"
import { AgentFailure, type AttemptFailure, DefectFailure, InfraFailure } from "@usine/core/attempt/failure"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { AttemptRequest } from "@usine/engine/Executor"
import type { Harness } from "../harness/Harness"
import { pullRequestFailure } from "../Harvest"
import { runBranchName } from "../Harvest/branchName"
import { missingCapabilityFailure, probeWorker } from "../probeWorker"
import { newestSalvage } from "../Salvage"
import type { TransportError } from "../WorkerTransport"
import type { GitCommandFailed, UnsafeWorkspacePath, WorkspaceExists } from "../Workspace/WorkspaceFailures"
import type { MirrorGit } from "../Workspace/mirrorGit"
import { BeginEntry, openJournal } from "./AttemptJournal"
import { type ExecutorSettings, turnDir } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"
import { salvageEarlierAttempts } from "./salvageEarlierAttempts"

const asFailure = (error: TransportError | GitCommandFailed | UnsafeWorkspacePath | WorkspaceExists): AttemptFailure => {
  switch (error._tag) {
    case "WorkerUnreachable":
    case "HostOperationFailed":
    case "HostCommandTimedOut":
      return new InfraFailure({ reason: error.message, evidence: "" })
    case "GitCommandFailed":
      return new InfraFailure({ reason: "preparing the workspace with git failed", evidence: error.message })
    case "UnsafeWorkspacePath":
      return new AgentFailure({ reason: error.message, evidence: "" })
    case "WorkspaceExists":
      return new DefectFailure({ reason: error.message, evidence: "" })
  }
}

/**
 * A pull request Run works on the head its trigger read (and its approver saw), never on commits pushed since
 * (ADR 0057): those are new content, which the next poll records as a new Event.
 */
const branchMoved = (number: number, observed: string, now: string) =>
  new AgentFailure({
    reason: `pull request #${number}'s branch moved since usine read it: nothing ran on the new commits, which come back as a new Event`,
    evidence: `read at ${observed.slice(0, 12)}, now at ${now.slice(0, 12)}`
  })

/** Where the work starts and where it goes: the Run's own branch, or back to the pull request it works on. */
const targets = (settings: ExecutorSettings, request: AttemptRequest) =>
  Effect.gen(function* () {
    const { run } = request
    if (request.policy.kind !== "pull_requests") {
      const baseBranch = yield* settings.pullRequests.defaultBranch(run.repository)
      return { baseBranch, startRef: baseBranch, pushBranch: runBranchName(run), pullRequest: undefined }
    }
    if (run.number === undefined) {
      return yield* new DefectFailure({ reason: "a pull-request Loop's Run has no pull request number", evidence: run.id })
    }
    const pull = yield* settings.pullRequests.get(run.repository, run.number)
    if (pull.headRepository?.toLowerCase() !== run.repository.toLowerCase()) {
      return yield* new AgentFailure({
        reason: `pull request #${pull.number} comes from ${pull.headRepository ?? "a deleted repository"}: usine cannot push to it`,
        evidence: ""
      })
    }
    if (run.headSha !== undefined && pull.headSha !== run.headSha) return yield* branchMoved(pull.number, run.headSha, pull.headSha)
    return { baseBranch: pull.baseRef, startRef: pull.headRef, pushBranch: pull.headRef, pullRequest: { number: pull.number, url: pull.url } }
  }).pipe(Effect.catchTag("PullRequestCallFailed", (error) => Effect.fail(pullRequestFailure(error))))

/**
 * A new Attempt's workspace: the Worker can run it (git and the harness's binary are there), the worktree is at
 * the base (or at the newest salvage of the Run, or the Run's branch, for a later Attempt), and the journal's
 * first entry says so. From then on the folder is kept even if this process stops: it is the Attempt's state.
 */
export const prepareAttempt = Effect.fn("WorkerExecutor.prepare")(function* (input: {
  readonly settings: ExecutorSettings
  readonly worker: ExecutorWorker
  readonly request: AttemptRequest
  readonly agent: AgentConfig
  readonly harness: Harness
}): Effect.fn.Return<{ readonly attemptDir: string; readonly worktree: string; readonly journal: ReturnType<typeof openJournal> }, AttemptFailure> {
  const { settings, worker, request } = input
  const { attempt, run } = request
  const located = yield* worker.workspace.locate(attempt.id).pipe(Effect.mapError(asFailure))
  const preview = yield* Effect.try({
    try: () =>
      input.harness.invocation({
        prompt: "",
        model: run.model ?? input.agent.model,
        workdir: located.worktree,
        attemptDir: turnDir(located.attemptDir, 1),
        command: input.agent.command
      }),
    catch: (error) => new AgentFailure({ reason: `the Agent ${run.agent} cannot be started`, evidence: String(error) })
  })
  const sandbox = worker.sandbox() === "none" ? undefined : { worker: worker.name }
  const capabilities = yield* probeWorker(worker.transport, { binaries: ["git", preview.argv[0] ?? ""], sandbox }).pipe(
    Effect.mapError(asFailure)
  )
  const missing = missingCapabilityFailure(capabilities)
  if (missing !== undefined) return yield* missing

  // Before the mirror's fetch, so that work pushed now is among the salvage branches it brings.
  if (attempt.number > 1) yield* salvageEarlierAttempts(settings, worker, attempt)
  const target = yield* targets(settings, request)
  const ownBranch = target.pullRequest === undefined
  // Decided from the fetched mirror, before the agent's clone exists: the clone starts there.
  const plan = (mirror: MirrorGit, baseSha: string) =>
    Effect.gen(function* () {
      if (!ownBranch && run.headSha !== undefined && baseSha !== run.headSha) {
        return yield* branchMoved(run.number ?? 0, run.headSha, baseSha)
      }
      const existing = yield* mirror.revParse(`refs/heads/${target.pushBranch}`).pipe(Effect.option)
      const salvaged = attempt.number > 1 ? yield* newestSalvage(mirror, run.id) : Option.none()
      // On a pull request's branch, only work built on its current head can be pushed back.
      const usable =
        ownBranch || Option.isNone(salvaged) || (yield* mirror.isAncestor(baseSha, salvaged.value.sha)) ? salvaged : Option.none()
      const resume = Option.isSome(usable)
        ? Option.some({ ref: usable.value.branch, sha: usable.value.sha })
        : ownBranch && attempt.number > 1
        ? Option.map(existing, (sha) => ({ ref: target.pushBranch, sha }))
        : Option.none()
      return { startSha: Option.match(resume, { onNone: () => baseSha, onSome: (r) => r.sha }), value: { existing, resume } }
    })
  const workspace = yield* Effect.scoped(
    worker.workspace
      .acquire(
        {
          attemptId: attempt.id,
          repository: run.repository,
          cloneUrl: settings.cloneUrl(run.repository),
          token: settings.token,
          ref: target.startRef,
          identity: settings.identity
        },
        plan
      )
      .pipe(Effect.tap((ws) => ws.keep))
  ).pipe(
    // The remembered default branch may be gone (renamed on GitHub): the next Attempt reads it again (ADR 0051).
    Effect.tapErrorTag("GitCommandFailed", () =>
      target.pullRequest === undefined ? settings.pullRequests.forgetDefaultBranch(run.repository) : Effect.void
    ),
    Effect.mapError((error) => (error._tag === "AgentFailure" ? error : asFailure(error)))
  )

  const begin = Effect.gen(function* () {
    const baseSha = workspace.record.baseSha
    const { existing, resume } = workspace.plan
    const journal = openJournal(worker.transport, workspace.attemptDir, [])
    yield* journal.append(
      new BeginEntry({
        at: yield* Clock.currentTimeMillis,
        worker: worker.name,
        startRef: Option.match(resume, { onNone: () => target.startRef, onSome: (r) => r.ref }),
        startSha: Option.match(resume, { onNone: () => baseSha, onSome: (r) => r.sha }),
        baseSha,
        baseBranch: target.baseBranch,
        pushBranch: target.pushBranch,
        leaseSha: ownBranch ? Option.getOrNull(existing) : null,
        ...(target.pullRequest === undefined ? {} : { pullRequest: target.pullRequest }),
        forbiddenPaths: request.policy.forbiddenPaths
      })
    )
    return { attemptDir: workspace.attemptDir, worktree: workspace.worktree, journal }
  })
  // Without its journal the folder is nobody's: it goes, so that nothing half-made is taken for a live Attempt.
  return yield* begin.pipe(
    Effect.mapError(asFailure),
    Effect.tapError(() => worker.workspace.remove(workspace.attemptDir).pipe(Effect.ignore))
  )
})
