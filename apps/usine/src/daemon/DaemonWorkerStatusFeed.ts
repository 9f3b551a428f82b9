import { Effect, Layer } from "effect"
import { WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { StepExecutor } from "@usine/engine/StepExecutor"
import { ConfigState } from "../ConfigState"
import { workerSpecsOf } from "../layers/PoliciesLayer"

/** The Workers page: each configured Worker with the slots the engine has taken on it and the Agents it runs. */
export const DaemonWorkerStatusFeed: Layer.Layer<WorkerStatusFeed, never, StepExecutor | ConfigState> = Layer.effect(
  WorkerStatusFeed,
  Effect.gen(function* () {
    const steps = yield* StepExecutor
    const state = yield* ConfigState
    return {
      workers: Effect.gen(function* () {
        const { inUse } = yield* steps.usage
        return workerSpecsOf(yield* state.get).map((worker) => ({
          name: worker.name,
          slotsUsed: inUse[worker.name] ?? 0,
          slotsMax: worker.maxConcurrentAttempts,
          capabilities: worker.agents,
          lostCapabilities: [],
          health: "ok" as const
        }))
      })
    }
  })
)
