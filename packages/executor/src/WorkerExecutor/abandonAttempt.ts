import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { AttemptId, parseAttemptId } from "@usine/core/ids/AttemptId"
import { DEFAULT_FORBIDDEN_PATHS } from "../guards/ForbiddenPaths"
import { salvage, Salvaged } from "../Salvage"
import { WorkspaceRecordJson } from "../Workspace/WorkspaceRecord"
import { type BeginEntry, type JournalEntry, readJournal } from "./AttemptJournal"
import { type ExecutorSettings, gitOf, turnSessions } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"

/**
 * Ends what is left of an Attempt that will not finish (canceled, or left by an earlier process): stops every
 * session of its turns (SIGTERM, then SIGKILL to the whole group), then salvages the worktree's work unless
 * the Attempt already succeeded. The caller removes the folder once this succeeded.
 */
export const abandonAttempt = Effect.fn("WorkerExecutor.abandon")(function* (
  settings: ExecutorSettings,
  worker: ExecutorWorker,
  attemptDir: string
) {
  for (const record of yield* turnSessions(worker.transport, attemptDir)) {
    yield* worker.sessions.stop(record, { graceMs: settings.stopGraceMs })
  }
  const stored = yield* worker.transport.readFile(path.join(attemptDir, "workspace.json"))
  const workspace = Option.flatMap(stored, (bytes) =>
    Schema.decodeUnknownOption(WorkspaceRecordJson)(Buffer.from(bytes).toString("utf8"))
  )
  if (Option.isNone(workspace)) return Salvaged.Nothing()
  const entries: ReadonlyArray<JournalEntry> = Option.getOrElse(yield* readJournal(worker.transport, attemptDir), () => [])
  if (entries.some((e) => e._tag === "outcome" && e.outcome._tag === "Succeeded")) return Salvaged.Nothing()
  const begin = entries.find((e): e is BeginEntry => e._tag === "begin")
  const { number, runId } = parseAttemptId(AttemptId(workspace.value.attemptId))
  return yield* salvage({
    git: gitOf({
      worker,
      settings,
      repository: workspace.value.repository,
      mirror: workspace.value.mirror,
      attemptDir,
      worktree: workspace.value.worktree
    }),
    redactor: settings.redactor,
    begin: begin ?? { baseSha: workspace.value.baseSha, forbiddenPaths: DEFAULT_FORBIDDEN_PATHS },
    runId,
    attemptNumber: number
  })
})
