import { Effect, Either, Option, Redacted, Ref, Schema } from "effect"
import * as path from "node:path/posix"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"
import { GitCommandFailed, UnsafeWorkspacePath, WorkspaceExists } from "./Workspace/errors"
import { gitAskPass } from "./Workspace/gitAskPass"
import { runGit } from "./Workspace/runGit"
import { attemptFolderName, contained, mirrorFolderName } from "./Workspace/WorkspacePaths"
import { WorkspaceRecord, WorkspaceRecordJson } from "./Workspace/WorkspaceRecord"

export interface WorkspaceRequest {
  readonly attemptId: string
  /** `owner/name`. */
  readonly repository: string
  /** Without credentials in it; a token goes in `token`. */
  readonly cloneUrl: string
  readonly token?: Redacted.Redacted<string> | undefined
  /** A branch name, a full ref such as `refs/pull/7/head`, or a commit sha. */
  readonly ref: string
}

export interface AttemptWorkspace {
  readonly record: WorkspaceRecord
  /** `attempts/<id>/`: stream, exit status, harness files. */
  readonly attemptDir: string
  /** `attempts/<id>/worktree`: the agent's working directory, detached at `record.baseSha`. */
  readonly worktree: string
  /** Leave the worktree and the folder when the scope closes: a detached live session still works in them. */
  readonly keep: Effect.Effect<void>
}

export type WorkspaceError = TransportError | GitCommandFailed | UnsafeWorkspacePath | WorkspaceExists

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

/**
 * Checkouts under one Worker root (ADR 0016): `mirrors/<owner>__<name>.git`, a bare mirror fetched on every use,
 * and `attempts/<id>/worktree`, a detached worktree per Attempt. Every path is checked to stay in the root.
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
    const git = (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) =>
      runGit(transport, args, { timeoutMs: options.gitTimeoutMs ?? 600_000, ...(env === undefined ? {} : { env }) })
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

    /** Fetches the mirror (creating it the first time) and resolves the ref to a commit. */
    const refresh = Effect.fn("Workspace.refresh")(function* (
      request: WorkspaceRequest,
      mirror: string,
      cloneUrl: string,
      ref: string
    ) {
      return yield* Effect.scoped(
        Effect.gen(function* () {
          const env = request.token === undefined ? {} : yield* gitAskPass(transport, root, request.token)
          if (Option.isNone(yield* transport.readFile(path.join(mirror, "HEAD"), { maxBytes: 0 }))) {
            yield* transport.makeDirectory(mirror)
            yield* git(["init", "--quiet", "--bare", mirror])
            yield* git(["-C", mirror, "config", "remote.origin.fetch", "+refs/heads/*:refs/heads/*"])
          }
          yield* git(["-C", mirror, "config", "remote.origin.url", cloneUrl])
          yield* git(["-C", mirror, "fetch", "--quiet", "--prune", "--no-tags", "origin"], env)
          if (ref.startsWith("refs/") && !ref.startsWith("refs/heads/")) {
            yield* git(["-C", mirror, "fetch", "--quiet", "--no-tags", "origin", `+${ref}:${ref}`], env)
          }
          const sha = yield* git(["-C", mirror, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`])
          return sha.trim()
        })
      )
    })

    /** Removes an Attempt's worktree (unregistering it from its mirror) and its folder. */
    const remove = Effect.fn("Workspace.remove")(function* (attemptDir: string) {
      const stored = yield* transport.readFile(path.join(attemptDir, "workspace.json"))
      const record = Option.flatMap(stored, (bytes) =>
        Schema.decodeUnknownOption(WorkspaceRecordJson)(Buffer.from(bytes).toString("utf8"))
      )
      if (Option.isSome(record)) {
        const { mirror, worktree } = record.value
        yield* git(["-C", mirror, "worktree", "remove", "--force", worktree]).pipe(Effect.ignore)
        yield* transport.remove(attemptDir)
        yield* git(["-C", mirror, "worktree", "prune"]).pipe(Effect.ignore)
      } else {
        yield* transport.remove(attemptDir)
      }
    })

    /**
     * Creates the Attempt's folder and worktree at the request's ref; the scope's end removes both unless
     * `keep` ran. An Attempt that already has a folder is refused, never reused.
     */
    const acquire = Effect.fn("Workspace.acquire")(function* (request: WorkspaceRequest) {
      const cloneUrl = yield* withoutCredentials(request.cloneUrl)
      const ref = yield* qualifiedRef(request.ref)
      const { folder, attemptDir, worktree } = yield* attemptPaths(request.attemptId)
      const mirror = yield* contained(transport, root, ["mirrors", yield* mirrorFolderName(request.repository)])
      const existing = yield* transport.listDirectory(path.join(root, "attempts"))
      if (existing.includes(folder)) {
        return yield* new WorkspaceExists({ attemptId: request.attemptId, path: attemptDir })
      }
      const kept = yield* Ref.make(false)
      yield* Effect.acquireRelease(transport.makeDirectory(attemptDir), () =>
        Effect.unlessEffect(remove(attemptDir).pipe(Effect.ignoreLogged), Ref.get(kept))
      )
      const lock = yield* lockOf(mirror)
      const baseSha = yield* lock.withPermits(1)(
        Effect.gen(function* () {
          const sha = yield* refresh(request, mirror, cloneUrl, ref)
          yield* git(["-C", mirror, "worktree", "add", "--quiet", "--detach", worktree, sha])
          return sha
        })
      )
      const record = new WorkspaceRecord({
        attemptId: request.attemptId,
        repository: request.repository,
        mirror,
        worktree,
        ref: request.ref,
        baseSha
      })
      yield* transport.writeFile(path.join(attemptDir, "workspace.json"), Schema.encodeSync(WorkspaceRecordJson)(record))
      return { record, attemptDir, worktree, keep: Ref.set(kept, true) } satisfies AttemptWorkspace
    })

    return {
      /** The Worker root this workspace lives in. */
      root,
      acquire,
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
