import { Effect, Either, Option } from "effect"
import * as path from "node:path/posix"
import type { HeldWork } from "@usine/core/attempt/outcome"
import type { Run } from "@usine/core/run/Run"
import { salvageBranchName } from "../Harvest/branchName"
import { mirrorGit } from "../Workspace/mirrorGit"
import { networkGit } from "../Workspace/networkGit"
import { mirrorFolderName } from "../Workspace/WorkspacePaths"
import type { ExecutorSettings } from "./AttemptContext"
import type { AttemptLocator } from "./AttemptLocator"

/**
 * Reject or an approval timeout at the pull-request gate (ADR 0063): the held work, kept in its Worker's mirror under
 * `held.ref`, is pushed from that daemon-owned repository to `usine/salvage/<run>/<attempt>` (force: the branch is the
 * Attempt's own), and the local ref goes. None when the Worker or GitHub cannot be reached: the ref stays.
 */
export const salvageHeldWork = (settings: ExecutorSettings, locator: AttemptLocator, run: Run, held: HeldWork, attemptNumber: number) =>
  Effect.gen(function* () {
    const worker = yield* locator.worker(held.worker)
    const folder = mirrorFolderName(run.repository)
    if (Either.isLeft(folder)) return Option.none<string>()
    const mirror = path.join(worker.workspace.root, "mirrors", folder.right)
    const cloneUrl = settings.cloneUrl(run.repository)
    const branch = salvageBranchName(run.id, attemptNumber)
    const network = networkGit({ transport: worker.transport, root: worker.workspace.root, gitDir: mirror, cloneUrl, token: settings.token, timeoutMs: 600_000 })
    yield* network(["push", "--quiet", "--no-verify", "--force", cloneUrl, `${held.head}:refs/heads/${branch}`])
    const git = mirrorGit({ transport: worker.transport, root: worker.workspace.root, mirror, cloneUrl, token: settings.token })
    yield* git.deleteRef(held.ref).pipe(Effect.ignoreLogged)
    return Option.some(branch)
  }).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning("the held work could not be pushed to its salvage branch").pipe(
        Effect.annotateLogs({ runId: run.id, error: settings.redactor.redact(String(error)) }),
        Effect.as(Option.none<string>())
      )
    ),
    Effect.withSpan("WorkerExecutor.salvageHeld")
  )
