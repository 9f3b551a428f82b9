import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { type RunId, runIdOf } from "@usine/core/ids/RunId"
import type { RunStateTag } from "@usine/core/run/state"
import * as Sql from "@usine/store/Sql"
import { BrakeStore } from "@usine/store/BrakeStore"
import { ItemStore } from "@usine/store/ItemStore"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { AttemptLifecycle } from "@usine/store/AttemptLifecycle"
import type { AttemptPolicy } from "@usine/engine/Executor"
import type { InMemoryExecutor } from "@usine/testkit/InMemoryExecutor"
import { type LoopPoliciesData, type LoopPolicy, LoopPolicies } from "@usine/engine/LoopPolicies"
import { RunDriver } from "@usine/engine/RunDriver"
import { RunEngine } from "@usine/engine/RunEngine"
import { TriggerCondition } from "@usine/engine/TriggerCondition"
import { until } from "./settle"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { runLedgerOf, type RunLedger } from "@usine/testkit/runLedger"

/** A ledger file in a temp dir that the scope removes. */
export const tempLedger = scopedTempDir("usine-engine-").pipe(Effect.map((dir) => join(dir, "ledger.sqlite")))

const attemptPolicy: AttemptPolicy = {
  verify: [],
  verifyRounds: 0,
  forbiddenPaths: [],
  maxChangedFiles: undefined,
  maxAttemptMinutes: undefined,
  stallMinutes: undefined,
  kind: "issues"
}

export const loopPolicy = (patch: Partial<LoopPolicy> = {}): LoopPolicy => ({
  approvalRequired: false,
  maxAttemptMinutes: undefined,
  approvalTimeoutMinutes: undefined,
  attempt: attemptPolicy,
  workers: undefined,
  ...patch
})

export const defaultPolicies: LoopPoliciesData = {
  loops: { build: loopPolicy(), review: loopPolicy(), gated: loopPolicy({ approvalRequired: true }) },
  workers: [
    { name: "w1", maxConcurrentAttempts: 1, agents: ["codex"] },
    { name: "w2", maxConcurrentAttempts: 1, agents: ["codex", "claude"] }
  ]
}

interface EngineOptions {
  readonly ledger: string
  readonly executor: InMemoryExecutor
  readonly policies?: LoopPoliciesData
  readonly trigger?: TriggerCondition["Type"]
  /** Wraps the real SQLite store's Attempt lifecycle, to inject faults. */
  readonly lifecycle?: (lifecycle: AttemptLifecycle["Type"]) => AttemptLifecycle["Type"]
}

/** The engine as the app wires it, on a real SQLite ledger; the ledger is locked for the life of the scope. */
const engineLayer = (options: EngineOptions) => {
  const ledger = Layer.mergeAll(SqlRunStore.layer, SqlBrakeStore.layer, SqlItemStore.layer).pipe(
    Layer.provide(Sql.layer(options.ledger))
  )
  const wrap = options.lifecycle
  const stores = wrap === undefined
    ? ledger
    : Layer.merge(ledger, Layer.effect(AttemptLifecycle, Effect.map(AttemptLifecycle, wrap)).pipe(Layer.provide(ledger)))
  const base = Layer.mergeAll(
    stores,
    options.executor.layer,
    LoopPolicies.layer(options.policies ?? defaultPolicies),
    options.trigger === undefined ? TriggerCondition.layerAlways : Layer.succeed(TriggerCondition, options.trigger)
  )
  // RunDriver.Default is the layer RunEngine.Default depends on: one build memoizes it, so both share one driver.
  return Layer.merge(RunEngine.Default, RunDriver.Default).pipe(Layer.provideMerge(base))
}

/** Starts an engine for the current scope; closing the scope stops it as a process exit would. */
export const startEngine = (options: EngineOptions) =>
  Effect.map(Layer.build(engineLayer(options)), (context) => ({
    engine: Context.get(context, RunEngine),
    driver: Context.get(context, RunDriver),
    store: runLedgerOf(context),
    brakes: Context.get(context, BrakeStore),
    items: Context.get(context, ItemStore)
  }))

export const REPOSITORY = "acme/app"

/** A trigger's Submission for issue `number` of acme/app with the given content. */
export const submission = (input: {
  readonly number: number
  readonly receivedAt: number
  readonly loop?: string
  readonly content?: string
  readonly agent?: string
  readonly approvalRequired?: boolean
  readonly maxCycles?: number
  readonly generation?: number
}): Submission => {
  const loop = input.loop ?? "build"
  const generation = input.generation ?? 0
  const contentHash = input.content ?? `c${input.receivedAt}`
  return {
    eventId: itemEventIdOf({ loop, repository: REPOSITORY, number: input.number, contentHash, generation }),
    loop,
    itemKey: itemKeyOf(REPOSITORY, input.number),
    repository: REPOSITORY,
    number: input.number,
    generation,
    contentHash,
    task: `work on #${input.number} (${contentHash})`,
    agent: input.agent ?? "codex",
    approvalRequired: input.approvalRequired ?? false,
    ...(input.maxCycles === undefined ? {} : { maxCycles: input.maxCycles }),
    receivedAt: input.receivedAt
  }
}

export const runOf = (s: Submission): RunId => runIdOf(s.eventId)

/** Waits until the Run exists and is in `state`. */
export const untilState = (store: RunLedger, runId: RunId, state: RunStateTag) =>
  until(`run ${runId} ${state}`, () =>
    store.getRun(runId).pipe(
      Effect.map((run) => run.state._tag === state),
      Effect.catchTag("RunNotFound", () => Effect.succeed(false))
    ))
