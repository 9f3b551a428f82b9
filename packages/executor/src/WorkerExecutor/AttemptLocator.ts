import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import { AgentFailure } from "@usine/core/attempt/failure"
import type { WorkerDirectory, WorkerEntry } from "../WorkerDirectory"
import type { TransportError } from "../WorkerTransport"
import { ExecutorWorker } from "./ExecutorWorker"

export interface LocatedAttempt {
  readonly worker: ExecutorWorker
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
  readonly worker: (name: string) => Effect.Effect<ExecutorWorker, AgentFailure | TransportError>
  /** Remembers which Worker runs an Attempt. */
  readonly place: (attemptId: string, worker: string) => void
  /** The Worker and folder of an Attempt whose folder exists. */
  readonly find: (attemptId: string, worker?: string) => Effect.Effect<Option.Option<LocatedAttempt>>
}

export const AttemptLocator = {
  make: (workers: WorkerDirectory) =>
    Effect.sync((): AttemptLocator => {
      const opened = new WeakMap<WorkerEntry, ExecutorWorker>()
      const placements = new Map<string, { readonly name: string; readonly entry: WorkerEntry | undefined }>()

      const open = (name: string, entry: WorkerEntry): Effect.Effect<ExecutorWorker, TransportError> => {
        const cached = opened.get(entry)
        if (cached !== undefined) return Effect.succeed(cached)
        return ExecutorWorker.open(name, entry).pipe(Effect.tap((worker) => Effect.sync(() => opened.set(entry, worker))))
      }

      const worker = (name: string): Effect.Effect<ExecutorWorker, AgentFailure | TransportError> =>
        Effect.suspend((): Effect.Effect<ExecutorWorker, AgentFailure | TransportError> => {
          const config = workers.get(name)
          if (config === undefined) return Effect.fail(new AgentFailure({ reason: `no Worker named ${name} is configured`, evidence: "" }))
          return open(name, config)
        })

      const lookIn = (name: string, attemptId: string, entry?: WorkerEntry) =>
        Effect.gen(function* () {
          const candidate = yield* (entry === undefined ? worker(name) : open(name, entry))
          const { attemptDir, worktree } = yield* candidate.workspace.locate(attemptId)
          const present = yield* candidate.transport.readFile(path.join(attemptDir, "workspace.json"), { maxBytes: 0 })
          return Option.isSome(present) ? Option.some({ worker: candidate, attemptDir, worktree }) : Option.none()
        }).pipe(
          Effect.catchAll((error) =>
            Effect.as(Effect.logInfo(`could not look for attempt ${attemptId} on Worker ${name}: ${error.message}`), Option.none<LocatedAttempt>())
          )
        )

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
