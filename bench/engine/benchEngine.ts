import { Context, Effect, Layer } from "effect"
import type { AttemptPolicy } from "@usine/engine/Executor"
import type { InMemoryExecutor } from "@usine/testkit/InMemoryExecutor"
import { type LoopPoliciesData, type LoopPolicy, LoopPolicies } from "@usine/engine/LoopPolicies"
import { RunEngine } from "@usine/engine/RunEngine"
import { TriggerCondition } from "@usine/engine/TriggerCondition"
import * as Sql from "@usine/store/Sql"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { runLedgerOf } from "@usine/testkit/runLedger"

const attempt: AttemptPolicy = {
  verify: [],
  verifyRounds: 0,
  forbiddenPaths: [],
  maxChangedFiles: undefined,
  maxAttemptMinutes: undefined,
  stallMinutes: undefined,
  kind: "issues"
}

const loop = (approvalRequired: boolean, workers: ReadonlyArray<string>): LoopPolicy => ({
  approvalRequired,
  maxAttemptMinutes: undefined,
  approvalTimeoutMinutes: undefined,
  attempt,
  workers
})

/**
 * Loop `build` runs on Worker `big`, with a slot for every Running Run; Loop `gated` needs approval and runs on
 * Worker `full`, which has no slot, so an approved Run stays Queued, its fiber waiting for a slot.
 */
export const benchPolicies = (slots: number): LoopPoliciesData => ({
  loops: { build: loop(false, ["big"]), gated: loop(true, ["full"]) },
  workers: [
    { name: "big", maxConcurrentAttempts: slots, agents: ["codex"] },
    { name: "full", maxConcurrentAttempts: 0, agents: ["codex"] }
  ]
})

/** The engine as the daemon wires it (locked SQLite ledger, SQL stores), with the in-memory executor. */
export const startBenchEngine = (ledger: string, executor: InMemoryExecutor, slots: number) => {
  const base = Layer.mergeAll(
    Layer.mergeAll(SqlRunStore.layer, SqlBrakeStore.layer, SqlItemStore.layer).pipe(Layer.provide(Sql.layer(ledger))),
    executor.layer,
    LoopPolicies.layer(benchPolicies(slots)),
    TriggerCondition.layerAlways
  )
  return Effect.map(Layer.build(RunEngine.Default.pipe(Layer.provideMerge(base))), (context) => ({
    engine: Context.get(context, RunEngine),
    store: runLedgerOf(context)
  }))
}
