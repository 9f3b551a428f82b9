import { DEFAULT_CONFINEMENT } from "../Sandbox/Confinement"
import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import { AgentFailure } from "@usine/core/attempt/failure"
import * as DurableSession from "../DurableSession"
import type { ExecutorWorker, WorkerDirectory } from "../WorkerDirectory"
import type { TransportError } from "../WorkerTransport"
import * as Workspace from "../Workspace"
import type { WorkerHandle } from "./AttemptContext"

export interface LocatedAttempt {
  readonly worker: WorkerHandle
  readonly attemptDir: string
  readonly worktree: string
}

/**
 * The executor's Workers and where each Attempt lives. A Worker's workspace root is opened on first use, so an
 * unreachable Worker fails its Attempts, not the daemon's start. Attempts this process did not place (a cancel
 * after a restart) are found by looking for their folder on every Worker.
 *
 * The Workers are asked for at each use, so the app may change them while running (a reload, ADR 0052, 0077). A
 * Worker is known by its entry, not only its name: an Attempt placed on a Worker that was since replaced under the same
 * name (another root or host) is still found on the entry it was placed on.
 */
export interface AttemptLocator {
  readonly names: () => ReadonlyArray<string>
  /** The Worker by name, its root opened. */
  readonly worker: (name: string) => Effect.Effect<WorkerHandle, AgentFailure | TransportError>
  /** Remembers which Worker runs an Attempt. */
  readonly place: (attemptId: string, worker: string) => void
  /** The Worker and folder of an Attempt whose folder exists. */
  readonly find: (attemptId: string, worker?: string) => Effect.Effect<Option.Option<LocatedAttempt>>
}

export const AttemptLocator = {
  make: (workers: WorkerDirectory) =>
    Effect.sync((): AttemptLocator => {
      const opened = new WeakMap<ExecutorWorker, WorkerHandle>()
      const placements = new Map<string, { readonly name: string; readonly entry: ExecutorWorker | undefined }>()

      const open = (name: string, config: ExecutorWorker): Effect.Effect<WorkerHandle, TransportError> => {
        const cached = opened.get(config)
        if (cached !== undefined) return Effect.succeed(cached)
        return Workspace.make({ transport: config.transport, root: config.root }).pipe(
          Effect.map((workspace) => {
            const handle: WorkerHandle = {
              name,
              transport: config.transport,
              workspace,
              sessions: DurableSession.make(config.transport),
              // Asked at each use: a reload may change it without replacing the Worker.
              sandbox: () => config.sandbox ?? "bubblewrap",
              confinement: () => config.confinement ?? DEFAULT_CONFINEMENT
            }
            opened.set(config, handle)
            return handle
          })
        )
      }

      const worker = (name: string): Effect.Effect<WorkerHandle, AgentFailure | TransportError> =>
        Effect.suspend((): Effect.Effect<WorkerHandle, AgentFailure | TransportError> => {
          const config = workers.get(name)
          if (config === undefined) return Effect.fail(new AgentFailure({ reason: `no Worker named ${name} is configured`, evidence: "" }))
          return open(name, config)
        })

      const lookIn = (name: string, attemptId: string, entry?: ExecutorWorker) =>
        Effect.gen(function* () {
          const handle = yield* (entry === undefined ? worker(name) : open(name, entry))
          const { attemptDir, worktree } = yield* handle.workspace.locate(attemptId)
          const present = yield* handle.transport.readFile(path.join(attemptDir, "workspace.json"), { maxBytes: 0 })
          return Option.isSome(present) ? Option.some({ worker: handle, attemptDir, worktree }) : Option.none()
        }).pipe(Effect.orElseSucceed(() => Option.none<LocatedAttempt>()))

      const find = (attemptId: string, hint?: string) =>
        Effect.gen(function* () {
          const placed = placements.get(attemptId)
          // The entry it was placed on first, even if a reload replaced or removed that Worker since.
          if (placed?.entry !== undefined && (hint === undefined || hint === placed.name)) {
            const found = yield* lookIn(placed.name, attemptId, placed.entry)
            if (Option.isSome(found)) return found
          }
          const names = workers.names()
          const first = hint ?? placed?.name
          const order = first === undefined ? names : [first, ...names.filter((n) => n !== first)]
          for (const name of order) {
            const found = yield* lookIn(name, attemptId)
            if (Option.isSome(found)) return found
          }
          return Option.none<LocatedAttempt>()
        })

      return {
        names: workers.names,
        worker,
        place: (attemptId, name) => void placements.set(attemptId, { name, entry: workers.get(name) }),
        find
      }
    })
}
