import { Effect, Layer } from "effect"
import { WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { WorkerSlots } from "@usine/engine/WorkerSlots"
import { ConfigState } from "../ConfigState"
import { workerSpecsOf } from "../layers/PoliciesLayer"

/** The Workers page: each configured Worker with the slots the engine has taken on it, the Agents it runs, its sandbox. */
export const DaemonWorkerStatusFeed: Layer.Layer<WorkerStatusFeed, never, WorkerSlots | ConfigState> = Layer.effect(
  WorkerStatusFeed,
  Effect.gen(function* () {
    const steps = yield* WorkerSlots
    const state = yield* ConfigState
    return {
      workers: Effect.gen(function* () {
        const { inUse } = yield* steps.usage
        const config = yield* state.get
        return workerSpecsOf(config).map((worker) => ({
          name: worker.name,
          slotsUsed: inUse[worker.name] ?? 0,
          slotsMax: worker.maxConcurrentAttempts,
          capabilities: worker.agents,
          lostCapabilities: [],
          health: "ok" as const,
          sandbox: config.workers[worker.name]?.sandbox ?? "bubblewrap"
        }))
      })
    }
  })
)
