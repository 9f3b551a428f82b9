import { Effect, Option } from "effect"
import { DefectFailure, InfraFailure } from "@usine/core/attempt/failure"
import { openJournal, readJournal } from "./AttemptJournal"
import type { ExecutorWorker } from "./ExecutorWorker"

/** A live Attempt's folder and journal, for a follower that reattaches after a detach or a restart. */
export const resumeAttempt = Effect.fn("WorkerExecutor.resume")(function* (worker: ExecutorWorker, attemptId: string) {
  const { attemptDir, worktree } = yield* worker.workspace.locate(attemptId)
  const entries = yield* readJournal(worker.transport, attemptDir)
  if (Option.isNone(entries)) {
    return yield* new InfraFailure({ reason: "the attempt's session was not found on its Worker", evidence: attemptDir })
  }
  return { attemptDir, worktree, journal: openJournal(worker.transport, attemptDir, entries.value) }
}, (effect) =>
  effect.pipe(
    Effect.catchTags({
      UnsafeWorkspacePath: (e) => Effect.fail(new DefectFailure({ reason: e.message, evidence: "" })),
      WorkerUnreachable: (e) => Effect.fail(new InfraFailure({ reason: e.message, evidence: "" })),
      HostOperationFailed: (e) => Effect.fail(new InfraFailure({ reason: e.message, evidence: "" })),
      HostCommandTimedOut: (e) => Effect.fail(new InfraFailure({ reason: e.message, evidence: "" }))
    })
  ))
