import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { RecoveryReport } from "@usine/engine/Executor"
import { recoverWorkerRoot } from "../recoverWorkerRoot"
import { abandonAttempt } from "./abandonAttempt"
import type { ExecutorSettings } from "./AttemptContext"
import type { AttemptLocator } from "./AttemptLocator"

/**
 * At start, on every Worker: the folders of the Attempts the engine still follows are kept, and so are those whose
 * session still runs (ADR 0048); every other folder an earlier process left has its ended sessions stopped (their
 * groups' leftovers), its work salvaged, and is removed. A folder whose salvage fails
 * stays for the next start. Token files a killed process left under `credentials/` are removed. The report names Attempts by id where their folder said which.
 */
export const recoverWorkerWorkspaces = (settings: ExecutorSettings, locator: AttemptLocator, live: ReadonlyArray<Attempt>) =>
  Effect.gen(function* () {
    const report = { salvaged: [] as Array<string>, removed: [] as Array<string>, kept: [] as Array<string> }
    for (const name of locator.names()) {
      const worker = yield* locator.worker(name).pipe(Effect.option)
      if (Option.isNone(worker)) {
        yield* Effect.logWarning("a Worker could not be reached for recovery").pipe(Effect.annotateLogs({ worker: name }))
        continue
      }
      // Tokens lent to git by a process that was killed before its scope closed; nothing of this process uses one yet.
      yield* worker.value.transport.remove(path.join(worker.value.workspace.root, "credentials")).pipe(Effect.ignoreLogged)
      const present = new Set(yield* worker.value.workspace.attempts.pipe(Effect.orElseSucceed(() => [])))
      const keep = new Set<string>()
      for (const attempt of live) {
        const located = yield* worker.value.workspace.locate(attempt.id).pipe(Effect.option)
        if (Option.isSome(located) && present.has(located.value.attemptDir)) {
          keep.add(located.value.attemptDir)
          report.kept.push(attempt.id)
        }
      }
      const ids = new Map<string, string>()
      const idOf = (dir: string) => ids.get(dir) ?? path.basename(dir)
      const recovery = yield* recoverWorkerRoot({
        transport: worker.value.transport,
        workspace: {
          ...worker.value.workspace,
          attempts: worker.value.workspace.attempts.pipe(Effect.map((dirs) => dirs.filter((dir) => !keep.has(dir))))
        },
        salvage: (left) => {
          if (Option.isSome(left.workspace)) ids.set(left.attemptDir, left.workspace.value.attemptId)
          return abandonAttempt(settings, worker.value, left.attemptDir).pipe(Effect.map((s) => s._tag === "Saved"))
        }
      }).pipe(Effect.orElseSucceed(() => ({ kept: [], salvaged: [], removed: [], failed: [] })))
      // Never stopped here: it may be another daemon's (ADR 0048). Once it ends, the next start salvages it.
      for (const attemptDir of recovery.kept) {
        yield* Effect.logWarning("an agent session no Run of this ledger follows still runs; its folder stays").pipe(
          Effect.annotateLogs({ worker: name, attemptDir })
        )
      }
      report.salvaged.push(...recovery.salvaged.map(idOf))
      report.removed.push(...recovery.removed.map(idOf))
    }
    return report satisfies RecoveryReport
  }).pipe(Effect.withSpan("WorkerExecutor.recoverWorkerWorkspaces"))
