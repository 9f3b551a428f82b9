import { Effect, Layer } from "effect"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { describeLimits, describeUser, probeLimits } from "@usine/executor/Sandbox/probeLimits"
import { WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { WorkerSlots } from "@usine/engine/WorkerSlots"
import { ConfigState } from "../ConfigState"
import { workerSpecsOf } from "../layers/PoliciesLayer"

/** The Workers page: each configured Worker with the slots the engine has taken on it, the Agents it runs, its sandbox. */
export const DaemonWorkerStatusFeed: Layer.Layer<WorkerStatusFeed, never, WorkerSlots | ConfigState> = Layer.effect(
  WorkerStatusFeed,
  Effect.gen(function* () {
    const slots = yield* WorkerSlots
    const state = yield* ConfigState
    // This machine's answer (root or not, which cgroups) does not change while the daemon runs: asked once.
    const localHost = yield* Effect.cached(probeLimits(LocalTransport.make()).pipe(Effect.option, Effect.map((o) => o._tag === "Some" ? o.value : undefined)))
    return {
      workers: Effect.gen(function* () {
        const { inUse } = yield* slots.usage
        const config = yield* state.get
        const local = yield* localHost
        return workerSpecsOf(config).map((worker) => {
          const configured = config.workers[worker.name]
          const settings = configured === undefined ? undefined : { sandboxUid: configured.sandboxUid, limits: configured.limits }
          const host = configured?.type === "local" ? local : undefined
          return {
          name: worker.name,
          slotsUsed: inUse[worker.name] ?? 0,
          slotsMax: worker.maxConcurrentAttempts,
          capabilities: worker.agents,
          lostCapabilities: [],
          health: "ok" as const,
          sandbox: configured?.sandbox ?? "bubblewrap",
          confinement: settings === undefined ? undefined : { user: describeUser(settings, host), limits: describeLimits(settings, host) }
        }
        })
      })
    }
  })
)
