import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import { AgentFailure } from "@usine/core/attempt/failure"
import * as DurableSession from "../DurableSession"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
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
 */
export interface AttemptLocator {
  readonly names: ReadonlyArray<string>
  /** The Worker by name, its root opened. */
  readonly worker: (name: string) => Effect.Effect<WorkerHandle, AgentFailure | TransportError>
  /** Remembers which Worker runs an Attempt. */
  readonly place: (attemptId: string, worker: string) => void
  /** The Worker and folder of an Attempt whose folder exists. */
  readonly find: (attemptId: string, worker?: string) => Effect.Effect<Option.Option<LocatedAttempt>>
}

export const AttemptLocator = {
  make: (workers: Readonly<Record<string, { readonly transport: WorkerTransportShape; readonly root: string }>>) =>
    Effect.sync((): AttemptLocator => {
      const opened = new Map<string, WorkerHandle>()
      const placements = new Map<string, string>()
      const names = Object.keys(workers)

      const worker = (name: string): Effect.Effect<WorkerHandle, AgentFailure | TransportError> =>
        Effect.suspend((): Effect.Effect<WorkerHandle, AgentFailure | TransportError> => {
          const cached = opened.get(name)
          if (cached !== undefined) return Effect.succeed(cached)
          const config = workers[name]
          if (config === undefined) return Effect.fail(new AgentFailure({ reason: `no Worker named ${name} is configured`, evidence: "" }))
          return Workspace.make({ transport: config.transport, root: config.root }).pipe(
            Effect.map((workspace) => {
              const handle = { name, transport: config.transport, workspace, sessions: DurableSession.make(config.transport) }
              opened.set(name, handle)
              return handle
            })
          )
        })

      const lookIn = (name: string, attemptId: string) =>
        Effect.gen(function* () {
          const handle = yield* worker(name)
          const { attemptDir, worktree } = yield* handle.workspace.locate(attemptId)
          const present = yield* handle.transport.readFile(path.join(attemptDir, "workspace.json"), { maxBytes: 0 })
          return Option.isSome(present) ? Option.some({ worker: handle, attemptDir, worktree }) : Option.none()
        }).pipe(Effect.orElseSucceed(() => Option.none<LocatedAttempt>()))

      const find = (attemptId: string, hint?: string) =>
        Effect.gen(function* () {
          const first = hint ?? placements.get(attemptId)
          const order = first === undefined ? names : [first, ...names.filter((n) => n !== first)]
          for (const name of order) {
            const found = yield* lookIn(name, attemptId)
            if (Option.isSome(found)) return found
          }
          return Option.none<LocatedAttempt>()
        })

      return { names, worker, place: (attemptId, name) => void placements.set(attemptId, name), find }
    })
}
