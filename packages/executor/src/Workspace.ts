import { Deferred, Effect, Either, Ref, Schema } from "effect"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import * as path from "node:path/posix"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"
import { type GitCommandFailed, UnsafeWorkspacePath, WorkspaceExists } from "./Workspace/WorkspaceFailures"
import { harvestRepoOf } from "./Harvest/attemptGit"
import { AGENT_IDENTITY, type CommitIdentity } from "./Harvest/CommitIdentity"
import { type MirrorGit, mirrorGit } from "./Workspace/mirrorGit"
import { runGit } from "./Workspace/runGit"
import { initStartRepo, makeStartRepo, startRepoOf } from "./Workspace/startRepo"
import { attemptFolderName, contained, mirrorFolderName } from "./Workspace/WorkspacePaths"
import { WorkspaceRecord, WorkspaceRecordJson } from "./Workspace/WorkspaceRecord"

interface WorkspaceRequest {
  readonly attemptId: string
  /** `owner/name`. */
  readonly repository: string
  /** Without credentials in it; a token goes in `token`. */
  readonly cloneUrl: string
  readonly token?: GitHubCredential | undefined
  /** A branch name, a full ref such as `refs/pull/7/head`, or a commit sha. */
  readonly ref: string
  /** The agent's clone commits under it; `AGENT_IDENTITY` by default. */
  readonly identity?: CommitIdentity | undefined
}

interface AttemptWorkspace<A = void> {
  readonly record: WorkspaceRecord
  /** `attempts/<id>/`: stream, exit status, harness files. */
  readonly attemptDir: string
  /** `attempts/<id>/worktree`: the agent's own clone, detached at the planned start. */
  readonly worktree: string
  /** Leave the worktree and the folder when the scope closes: a detached live session still works in them. */
  readonly keep: Effect.Effect<void>
  /** What the plan decided besides the start. */
  readonly plan: A
}

/** Where an Attempt starts, decided from the fetched mirror and the base, with anything else the caller keeps. */
type StartPlan<A, E> = (mirror: MirrorGit, baseSha: string) => Effect.Effect<{ readonly startSha: string; readonly value: A }, E>

// Never an option (`-`), a climb (`..`) or a reflog expression (`@{`); `@` and `+` appear in real branch names
// (Dependabot's `dependabot/npm_and_yarn/@types/node-20.1.0`). Refs reach git as arguments, never through a shell.
const refPattern = /^(?!-)(?!.*\.\.)(?!.*@\{)[A-Za-z0-9._/@+-]+$/
const shaPattern = /^[0-9a-f]{40}$/

/** The full ref to fetch and resolve; a bare name is a branch. */
const qualifiedRef = (ref: string): Either.Either<string, UnsafeWorkspacePath> =>
  !refPattern.test(ref)
    ? Either.left(new UnsafeWorkspacePath({ path: ref, reason: "not a git ref" }))
    : Either.right(shaPattern.test(ref) || ref.startsWith("refs/") ? ref : `refs/heads/${ref}`)

const withoutCredentials = (cloneUrl: string): Either.Either<string, UnsafeWorkspacePath> => {
  const parsed = URL.canParse(cloneUrl) ? new URL(cloneUrl) : undefined
  return parsed !== undefined && (parsed.username !== "" || parsed.password !== "")
    ? Either.left(new UnsafeWorkspacePath({ path: parsed.host, reason: "the clone URL carries credentials" }))
    : Either.right(cloneUrl)
}

/** The default plan: start at the base. */
const startAtBase: StartPlan<void, never> = (_, baseSha) => Effect.succeed({ startSha: baseSha, value: undefined })

/**
 * Checkouts under one Worker root (ADR 0016, ADR 0053, ADR 0083): `mirrors/<owner>__<name>.git`, a bare mirror only
 * the daemon writes and no sandbox sees, fetched on every use, with the held and salvaged work; `attempts/<id>/start.git`,
 * the history of the Attempt's own start and nothing else, packed from the mirror; `attempts/<id>/worktree`, the
 * agent's own clone (its own `.git`, objects borrowed from `start.git` only), so nothing an agent writes there
 * changes what the mirror or another Attempt sees, and nothing of another branch or Run is there to read; and
 * `harvest/<id>.git`, where the daemon reads the agent's work back (see `attemptGit`). Every path is checked to stay
 * in the root.
 */
export const make = (options: {
  readonly transport: WorkerTransportShape
  readonly root: string
  readonly gitTimeoutMs?: number
}) =>
  Effect.gen(function* () {
    const { transport } = options
    yield* transport.makeDirectory(options.root)
    const root = yield* transport.realPath(options.root)
    const timeoutMs = options.gitTimeoutMs ?? 600_000
    const git = (args: ReadonlyArray<string>) => runGit(transport, args, { timeoutMs })
    // Two Attempts of one repository must not fetch into the same mirror at once (git's ref locks).
    const locks = new Map<string, Effect.Semaphore>()
    const lockOf = (mirror: string) =>
      Effect.sync(() => {
        const existing = locks.get(mirror)
        if (existing !== undefined) return existing
        const created = Effect.unsafeMakeSemaphore(1)
        locks.set(mirror, created)
        return created
      })

    const attemptPaths = Effect.fn("Workspace.locate")(function* (attemptId: string) {
      const folder = yield* attemptFolderName(attemptId)
      const attemptDir = yield* contained(transport, root, ["attempts", folder])
      return { folder, attemptDir, worktree: path.join(attemptDir, "worktree") }
    })

    /** The mirror of a repository, for the daemon's own reads and fetches. */
    const mirrorOf = Effect.fn("Workspace.mirrorOf")(function* (
      repository: string,
      cloneUrl: string,
      token: GitHubCredential | undefined
    ) {
      const mirror = yield* contained(transport, root, ["mirrors", yield* mirrorFolderName(repository)])
      return mirrorGit({ transport, root, mirror, cloneUrl: yield* withoutCredentials(cloneUrl), token, timeoutMs })
    })

    /** Removes an Attempt's folder (worktree included) and its harvest repository. */
    const remove = Effect.fn("Workspace.remove")(function* (attemptDir: string) {
      yield* transport.remove(attemptDir)
      yield* transport.remove(harvestRepoOf(root, attemptDir))
    })

    /** The agent's clone at `sha`: made by the daemon before any agent runs, with an identity to commit under. */
    const cloneFor = (start: string, worktree: string, sha: string, identity: CommitIdentity) =>
      Effect.gen(function* () {
        // `--config` writes the identity into the new clone's own config: no `git config` process of its own.
        yield* git([
          "clone", "--quiet", "--shared", "--no-checkout", "--no-hardlinks",
          "--config", `user.name=${identity.name}`, "--config", `user.email=${identity.email}`, start, worktree
        ])
        yield* git(["-C", worktree, "checkout", "--quiet", "--detach", sha])
      })

    /**
     * Creates the Attempt's folder and its clone: the mirror is refreshed, the request's ref resolved to the base,
     * and `plan` picks the start (the base, or the work of an earlier Attempt). The scope's end removes both unless
     * `keep` ran. An Attempt that already has a folder is refused, never reused.
     */
    const acquire = <A = void, E = never>(request: WorkspaceRequest, plan: StartPlan<A, E> = startAtBase as unknown as StartPlan<A, E>) =>
      Effect.gen(function* () {
        const ref = yield* qualifiedRef(request.ref)
        const { folder, attemptDir, worktree } = yield* attemptPaths(request.attemptId)
        const mirror = yield* mirrorOf(request.repository, request.cloneUrl, request.token)
        const existing = yield* transport.listDirectory(path.join(root, "attempts"))
        if (existing.includes(folder)) {
          return yield* new WorkspaceExists({ attemptId: request.attemptId, path: attemptDir })
        }
        const kept = yield* Ref.make(false)
        yield* Effect.acquireRelease(transport.makeDirectory(attemptDir), () =>
          Effect.unlessEffect(remove(attemptDir).pipe(Effect.ignoreLogged), Ref.get(kept))
        )
        const lock = yield* lockOf(mirror.mirror)
        const start = startRepoOf(attemptDir)
        // The empty start repository needs nothing of the mirror: it is made while the mirror is fetched.
        const initialized = yield* Deferred.make<void, TransportError | GitCommandFailed>()
        const [, { baseSha, planned }] = yield* Effect.all([
          Effect.intoDeferred(initStartRepo(transport, start, timeoutMs), initialized),
          lock.withPermits(1)(
            Effect.gen(function* () {
              yield* mirror.ensure()
              const baseSha = yield* mirror.fetchCommit(ref)
              const planned = yield* plan(mirror, baseSha)
              yield* Deferred.await(initialized)
              // Under the lock: a fetch that finds a branch deleted drops its objects from the mirror.
              yield* makeStartRepo({
                transport,
                mirror: mirror.mirror,
                start,
                shas: [planned.startSha, baseSha],
                branch: ref.startsWith("refs/heads/") ? { name: ref.slice("refs/heads/".length), sha: baseSha } : undefined,
                timeoutMs,
                initialized: true
              })
              return { baseSha, planned }
            })
          )
        ], { concurrency: 2 })
        yield* cloneFor(start, worktree, planned.startSha, request.identity ?? AGENT_IDENTITY)
        const record = new WorkspaceRecord({
          attemptId: request.attemptId,
          repository: request.repository,
          mirror: mirror.mirror,
          worktree,
          ref: request.ref,
          baseSha
        })
        yield* transport.writeFile(path.join(attemptDir, "workspace.json"), Schema.encodeSync(WorkspaceRecordJson)(record))
        return { record, attemptDir, worktree, keep: Ref.set(kept, true), plan: planned.value } satisfies AttemptWorkspace<A>
      }).pipe(Effect.withSpan("Workspace.acquire"))

    return {
      /** The Worker root this workspace lives in. */
      root,
      acquire,
      mirrorOf,
      /** The folder and worktree paths of an Attempt, checked, without creating anything (reattach). */
      locate: attemptPaths,
      remove,
      /** The Attempt folders present under the root. */
      attempts: transport
        .listDirectory(path.join(root, "attempts"))
        .pipe(Effect.map((names) => names.map((name) => path.join(root, "attempts", name))))
    }
  })

export type Workspace = Effect.Effect.Success<ReturnType<typeof make>>
