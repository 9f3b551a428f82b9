import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { SessionRecord } from "./DurableSession/SessionRecord"
import { sessionFiles } from "./DurableSession/sessionFiles"
import { type SessionStatus, sessionStatus } from "./DurableSession/sessionStatus"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"
import type { Workspace } from "./Workspace"
import { WorkspaceRecord } from "./Workspace/WorkspaceRecord"

/** One Attempt folder an earlier process left, as recovery found it. */
export interface LeftWorkspace {
  readonly attemptDir: string
  /** Absent when the process died before the worktree was recorded. */
  readonly workspace: Option.Option<WorkspaceRecord>
  /** Absent when the process died before the session started. */
  readonly session: Option.Option<SessionRecord>
  /** `Exited` or `Gone` when a session had started; the live ones are never handed out. */
  readonly status: Option.Option<SessionStatus>
}

export interface Recovery {
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

/**
 * Walks `attempts/*` under a Worker root after a restart. A folder whose session still runs is kept; every other
 * one goes through `salvage` (which answers whether it saved anything, for instance by pushing a salvage branch)
 * and is then removed with its worktree. A failed salvage leaves the folder for the next recovery.
 */
export const recoverWorkspaces = <E>(options: {
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
      const files = sessionFiles(attemptDir)
      const session = yield* readJson(transport, files.session, SessionRecord)
      const status = Option.isSome(session)
        ? Option.some(yield* sessionStatus(transport, session.value))
        : Option.none<SessionStatus>()
      if (Option.exists(status, (s) => s._tag === "Running")) {
        kept.push(attemptDir)
        continue
      }
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
