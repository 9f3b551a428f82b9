import { Effect, Layer, Stream } from "effect"
import { WorkerSlots } from "@usine/engine/WorkerSlots"
import { ConfigState } from "../ConfigState"
import { workerSpecsOf } from "./PoliciesLayer"
import { WorkerPool } from "@usine/executor/WorkerPool"

/** The Needs you headline of a reload whose Workers were not all opened: the rest of it is in force. */
const WORKER_NOT_OPENED = "a Worker of the configuration could not be opened; the rest of the change applies"

/**
 * Workers follow a reload (ADR 0052): at each configuration put in force, the executor's `WorkerPool` opens the
 * Workers added and retires those removed or changed, then the engine's slots are set to the Workers in force, so a
 * new Worker is granted nothing before it is open. A Worker that cannot be opened is reported like a refused
 * configuration (the log and Needs you) and left out; the rest of the reload applies. Without a `WorkerPool` (a
 * daemon wired with another executor) the slots follow the configuration as it is.
 */
export const WorkersReloadLayer = (configFile: string): Layer.Layer<never, never, WorkerSlots | ConfigState> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const slots = yield* WorkerSlots
      const state = yield* ConfigState
      const pool = yield* Effect.serviceOption(WorkerPool)
      yield* state.changes.pipe(
        Stream.runForEach((config) =>
          Effect.gen(function* () {
            const reconciled = pool._tag === "Some"
              ? yield* pool.value.reconcile(config)
              : { inForce: Object.keys(config.workers), problems: [] }
            const inForce = new Set(reconciled.inForce)
            yield* slots.setWorkers(workerSpecsOf(config).filter((worker) => inForce.has(worker.name)))
            if (reconciled.problems.length === 0) return
            const message = reconciled.problems.join("\n")
            yield* state.reject(configFile, message, WORKER_NOT_OPENED)
            yield* Effect.logWarning(`${WORKER_NOT_OPENED}:\n${message}`)
          })
        ),
        Effect.catchAllCause((cause) => Effect.logError("the Workers stopped following the configuration", cause)),
        Effect.forkScoped
      )
    })
  )
