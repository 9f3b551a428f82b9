import { Effect, Layer, Option } from "effect"
import type { CompiledLoop } from "@usine/core/config/CompiledLoop"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { LoopPolicies, type LoopPolicy, type WorkerSpec } from "@usine/engine/LoopPolicies"
import { ConfigState } from "../ConfigState"

/** What the engine needs of one Loop of usine.yaml. */
const policyOf = (loop: CompiledLoop): LoopPolicy => ({
  approvalRequired: loop.approval === "required",
  maxAttemptMinutes: loop.maxAttemptMinutes,
  approvalTimeoutMinutes: loop.approvalTimeoutMinutes,
  attempt: {
    verify: loop.verify,
    verifyRounds: loop.verifyRounds,
    forbiddenPaths: loop.forbiddenPaths,
    maxChangedFiles: loop.maxChangedFiles,
    maxAttemptMinutes: loop.maxAttemptMinutes,
    stallMinutes: loop.stallMinutes,
    setup: loop.setup,
    setupMinutes: loop.setupMinutes,
    pullRequest: { closes: loop.pullRequest.closes, draft: loop.pullRequest.draft },
    kind: loop.on,
    network: loop.network,
    pullRequestGate: loop.pullRequestApproval === "required",
    judge: loop.judge,
    output: loop.output
  },
  workers: loop.workers,
  budget: loop.budget,
  maxNoProgress: loop.on === "schedule" ? undefined : loop.maxNoProgress,
  maxOpenPullRequests: loop.maxOpenPullRequests,
  retryBackoffMs: loop.retryBackoffMs
})

/** Each Worker with its slots and the Agents it runs: those it lists, or every Agent. */
export const workerSpecsOf = (config: UsineConfig): ReadonlyArray<WorkerSpec> =>
  Object.entries(config.workers).map(([name, worker]) => ({
    name,
    maxConcurrentAttempts: worker.maxConcurrentAttempts,
    agents: worker.agents ?? Object.keys(config.agents)
  }))

/**
 * The engine's Loop policies, read from the configuration in force at each use. A Loop removed by a reload keeps its
 * last policy for the Runs it already opened, so they can finish; the triggers stop submitting for it at once.
 */
export const PoliciesLayer: Layer.Layer<LoopPolicies, never, ConfigState> = Layer.effect(
  LoopPolicies,
  Effect.map(ConfigState, (state) => {
    const retired = new Map<string, LoopPolicy>()
    let seen: UsineConfig | undefined
    let policies: ReadonlyMap<string, LoopPolicy> = new Map()
    const current = (): ReadonlyMap<string, LoopPolicy> => {
      const config = state.unsafeGet()
      if (config === seen) return policies
      const next = new Map(config.loops.map((loop) => [loop.name, policyOf(loop)]))
      for (const [name, policy] of policies) if (!next.has(name)) retired.set(name, policy)
      for (const name of next.keys()) retired.delete(name)
      seen = config
      policies = next
      return policies
    }
    return {
      loop: (name: string) => Option.fromNullable(current().get(name) ?? retired.get(name)),
      loops: current,
      workers: () => workerSpecsOf(state.unsafeGet()),
      budget: () => state.unsafeGet().budget
    }
  })
)
