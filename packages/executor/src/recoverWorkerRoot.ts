import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { findSession } from "./DurableSession/findSession"
import type { SessionRecord } from "./DurableSession/SessionRecord"
import { type SessionStatus, sessionStatus } from "./DurableSession/sessionStatus"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"
import type { Workspace } from "./Workspace"
import { WorkspaceRecord } from "./Workspace/WorkspaceRecord"

/** One Attempt folder an earlier process left, as recovery found it. */
export interface LeftWorkspace {
  readonly attemptDir: string
  /** Absent when the process died before the worktree was recorded. */
  readonly workspace: Option.Option<WorkspaceRecord>
  /** The newest session of the folder (its last `turn-N/`, else the folder's own); absent when none started. */
  readonly session: Option.Option<SessionRecord>
  /** `Exited` or `Gone` when a session had started; the live ones are never handed out. */
  readonly status: Option.Option<SessionStatus>
}

interface Recovery {
  /** Folders of sessions that still run: left for reattach. */
  readonly kept: ReadonlyArray<string>
  /** Folders whose work the salvage effect saved (then removed). */
  readonly salvaged: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  /** Folders whose salvage failed: left in place for the next recovery, so no work is lost. */
  readonly failed: ReadonlyArray<string>
}

const readJson = <A, I>(transport: WorkerTransportShape, file: string, schema: Schema.Schema<A, I>) =>
  transport
    .readFile(file)
    .pipe(
      Effect.map(
        Option.flatMap((bytes) => Schema.decodeUnknownOption(Schema.parseJson(schema))(Buffer.from(bytes).toString("utf8")))
      )
    )

/** Where an Attempt's sessions live, newest first: its `turn-N/` folders (the executor's), then the folder itself. */
const sessionFolders = (transport: WorkerTransportShape, attemptDir: string) =>
  transport.listDirectory(attemptDir).pipe(
    Effect.map((names) => [
      ...names
        .filter((name) => /^turn-\d+$/.test(name))
        .sort((a, b) => Number(b.slice(5)) - Number(a.slice(5)))
        .map((name) => path.join(attemptDir, name)),
      attemptDir
    ])
  )

/** Every session of an Attempt's folder with its status, newest first. */
const sessionsOf = (transport: WorkerTransportShape, attemptDir: string) =>
  Effect.flatMap(sessionFolders(transport, attemptDir), (dirs) =>
    Effect.forEach(dirs, (dir) =>
      Effect.flatMap(findSession(transport, dir), (found) =>
        Option.isNone(found)
          ? Effect.succeed([])
          : Effect.map(sessionStatus(transport, found.value), (status) => [[found.value, status] as const])
      )
    )
  ).pipe(Effect.map((found) => found.flat()))

/**
 * Walks `attempts/*` under a Worker root after a restart. A folder any of whose sessions still runs (one of its
 * turns', or one started but never recorded, which is adopted then) is kept; every other
 * one goes through `salvage` (which answers whether it saved anything, for instance by pushing a salvage branch)
 * and is then removed with its worktree. A failed salvage leaves the folder for the next recovery.
 */
export const recoverWorkerRoot = <E>(options: {
  readonly transport: WorkerTransportShape
  readonly workspace: Workspace
  readonly salvage: (left: LeftWorkspace) => Effect.Effect<boolean, E>
}): Effect.Effect<Recovery, TransportError> =>
  Effect.gen(function* () {
    const { transport, workspace } = options
    const kept: Array<string> = []
    const salvaged: Array<string> = []
    const removed: Array<string> = []
    const failed: Array<string> = []
    for (const attemptDir of yield* workspace.attempts) {
      const sessions = yield* sessionsOf(transport, attemptDir)
      if (sessions.some(([, status]) => status._tag === "Running")) {
        kept.push(attemptDir)
        continue
      }
      const session = Option.map(Option.fromNullable(sessions[0]), ([record]) => record)
      const status = Option.map(Option.fromNullable(sessions[0]), ([, s]) => s)
      const workspaceRecord = yield* readJson(transport, path.join(attemptDir, "workspace.json"), WorkspaceRecord)
      const saved = yield* options.salvage({ attemptDir, workspace: workspaceRecord, session, status }).pipe(
        Effect.tapError((error) =>
          Effect.logWarning("salvage failed; the workspace stays").pipe(
            Effect.annotateLogs({ attemptDir, error: String(error) })
          )
        ),
        Effect.option
      )
      if (Option.isNone(saved)) {
        failed.push(attemptDir)
        continue
      }
      if (saved.value) salvaged.push(attemptDir)
      yield* workspace.remove(attemptDir)
      removed.push(attemptDir)
    }
    return { kept, salvaged, removed, failed }
  })
