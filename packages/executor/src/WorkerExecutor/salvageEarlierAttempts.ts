import { Effect, Either, Option } from "effect"
import * as path from "node:path/posix"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { attemptFolderName } from "../Workspace/WorkspacePaths"
import { abandonAttempt } from "./abandonAttempt"
import { readJournal } from "./AttemptJournal"
import type { ExecutorSettings } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"

/**
 * Before a later Attempt of a Run starts on a Worker: the folders its earlier Attempts left there because their
 * salvage failed (GitHub was down) are salvaged again and removed once their work is kept, so the new Attempt
 * starts from that work (ADR 0047). Only finished Attempts (an outcome in the journal) are touched; a failure
 * leaves the folder, whose local salvage ref the new Attempt can still start from.
 */
export const salvageEarlierAttempts = (settings: ExecutorSettings, worker: ExecutorWorker, attempt: Attempt) =>
  Effect.gen(function* () {
    const present = new Map((yield* worker.workspace.attempts).map((dir) => [path.basename(dir), dir]))
    for (let number = 1; number < attempt.number; number++) {
      const folder = attemptFolderName(attemptIdOf(attempt.runId, number, attempt.step))
      const attemptDir = Either.isRight(folder) ? present.get(folder.right) : undefined
      if (attemptDir === undefined) continue
      const entries = yield* readJournal(worker.transport, attemptDir)
      if (!Option.exists(entries, (all) => all.some((entry) => entry._tag === "outcome"))) continue
      yield* abandonAttempt(settings, worker, attemptDir).pipe(
        Effect.zipRight(worker.workspace.remove(attemptDir)),
        Effect.zipRight(Effect.logInfo("an earlier Attempt's kept work is salvaged; its folder is removed")),
        Effect.catchAll((error) =>
          Effect.logWarning("an earlier Attempt's work still cannot be salvaged; its folder stays").pipe(
            Effect.annotateLogs({ error: settings.redactor.redact(String(error)) })
          )
        ),
        Effect.annotateLogs({ attemptDir })
      )
    }
  }).pipe(
    Effect.catchAll((error) => Effect.logWarning("the Worker's earlier Attempt folders could not be read").pipe(
      Effect.annotateLogs({ error: String(error) })
    )),
    Effect.withSpan("WorkerExecutor.salvageEarlierAttempts")
  )
