import { Effect } from "effect"
import * as path from "node:path/posix"
import type { WorkerTransportShape } from "../WorkerTransport"
import { runGit } from "./runGit"

/** `attempts/<id>/start.git`: the one repository an Attempt's clone borrows from, and its sandboxes see. */
export const startRepoOf = (attemptDir: string): string => path.join(attemptDir, "start.git")

/** The empty bare repository `makeStartRepo` fills: no template, no hooks, nothing but what git needs. */
export const initStartRepo = (transport: WorkerTransportShape, start: string, timeoutMs: number) =>
  runGit(transport, ["init", "--quiet", "--bare", "--template=", start], { timeoutMs }).pipe(Effect.asVoid)

/**
 * Makes an Attempt's starting repository (ADR 0083): a bare repository holding only the history of `shas` (the
 * base, and the start when the Attempt resumes the Run's own work), packed from the mirror by `pack-objects --revs`
 * (its reachability bitmap makes that a copy, not a walk). No other branch, no held or salvaged work of another
 * Run, no object GitHub no longer has: the agent's clone borrows this and nothing else. `branch`, when the base is a
 * branch, is named there so the clone has `origin/<branch>` to compare with. `initialized`: `initStartRepo` already
 * made it (while the mirror was fetched); the Attempt's folder is new, so `start` is too.
 */
export const makeStartRepo = Effect.fn("Workspace.makeStartRepo")(function* (options: {
  readonly transport: WorkerTransportShape
  readonly mirror: string
  readonly start: string
  readonly shas: ReadonlyArray<string>
  readonly branch?: { readonly name: string; readonly sha: string } | undefined
  readonly timeoutMs: number
  readonly initialized?: boolean
}) {
  const { transport, start, timeoutMs } = options
  if (options.initialized !== true) yield* initStartRepo(transport, start, timeoutMs)
  yield* runGit(
    transport,
    [`--git-dir=${options.mirror}`, "pack-objects", "--revs", "--use-bitmap-index", "--quiet", path.join(start, "objects", "pack", "pack")],
    { timeoutMs, stdin: `${[...new Set(options.shas)].join("\n")}\n` }
  )
  if (options.branch !== undefined) {
    yield* runGit(transport, [`--git-dir=${start}`, "update-ref", `refs/heads/${options.branch.name}`, options.branch.sha], { timeoutMs })
  }
})
