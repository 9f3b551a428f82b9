import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { AttemptId, parseAttemptId } from "@usine/core/ids/AttemptId"
import { DEFAULT_FORBIDDEN_PATHS } from "../guards/ForbiddenPaths"
import { salvage, Salvaged } from "../Salvage"
import { WorkspaceRecordJson } from "../Workspace/WorkspaceRecord"
import { type BeginEntry, type JournalEntry, readJournal } from "./AttemptJournal"
import { type ExecutorSettings, gitOf, turnSessions } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"
import { interruptTurn, type TurnInterrupted } from "./interruptTurn"

const logInterrupted = (interrupted: TurnInterrupted) =>
  Option.match(interrupted.ended, {
    onNone: () => Effect.logWarning("the agent did not end its turn when asked; its session is stopped"),
    onSome: (status) => Effect.logInfo("the agent ended its turn when asked, before its session was stopped").pipe(Effect.annotateLogs({ status }))
  }).pipe(Effect.annotateLogs({ turn: interrupted.turnId }))

/**
 * Ends what is left of an Attempt that will not finish (canceled, or left by an earlier process): asks the CLI of each
 * live session of its turns to end its turn in progress where its harness can (Codex's `turn/interrupt`, ADR 0101),
 * waiting a bounded time, then stops the session (SIGTERM, then SIGKILL to the whole group), then salvages the worktree's work unless
 * the Attempt already succeeded. The caller removes the folder once this succeeded.
 */
export const abandonAttempt = Effect.fn("WorkerExecutor.abandon")(function* (
  settings: ExecutorSettings,
  worker: ExecutorWorker,
  attemptDir: string
) {
  for (const record of yield* turnSessions(worker.transport, attemptDir)) {
    yield* interruptTurn(worker.transport, record).pipe(
      Effect.tap(Option.match({ onNone: () => Effect.void, onSome: logInterrupted })),
      Effect.catchAll((error) => Effect.logWarning("the agent's turn could not be interrupted; its session is stopped", error.message))
    )
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
