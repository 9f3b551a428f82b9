import { Context, Duration, Effect, Layer } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { LoopPolicies } from "@usine/engine/LoopPolicies"
import { RunEngine } from "@usine/engine/RunEngine"
import { TriggerCondition } from "@usine/engine/TriggerCondition"
import { Redactor } from "@usine/core/text/Redactor"
import { BoardMoves } from "@usine/board/BoardMoves"
import { AuditTrail } from "@usine/board/AuditTrail"
import { BoardAccess } from "@usine/board/BoardAccess"
import { BoardServer } from "@usine/board/BoardServer"
import { BoardViews } from "@usine/board/BoardViews"
import { BoardSettings } from "@usine/board/BoardSettings"
import { PollFailureFeed } from "@usine/board/PollFailureFeed"
import { WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import * as ReadModel from "@usine/store/ReadModel"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as SqlAuditLog from "@usine/store/SqlAuditLog"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import * as WriteBackOutbox from "@usine/store/WriteBackOutbox"
import { benchPolicies } from "../engine/benchEngine"
import { OPEN_MIX } from "../seededLedger"
import { REPOSITORIES } from "../seedLedger"
import { runLedgerOf } from "@usine/testkit/runLedger"

const repositories = Array.from({ length: REPOSITORIES }, (_, r) => `bench-org/repo-${r}`)

const settings = BoardSettings.layer({
  ...BoardSettings.defaults,
  repositories,
  columns: [{ name: "Ready", label: "ready-for-agent" }, { name: "Working", label: "agent-working" }],
  loops: ["build", "review", "gated"].map((name) => ({
    name,
    on: "issues" as const,
    if: '"ready-for-agent" in item.labels',
    repositories,
    agent: "codex",
    approval: name === "gated" ? "required" as const : "none" as const,
    maxCycles: 3
  })),
  liveInterval: Duration.seconds(1)
})

/**
 * The Board as the daemon wires it, over an existing ledger (SQLite's or PostgreSQL's SQL layer): the SQL stores and read model, the RunEngine (its first
 * reconcile starts the ledger's open Runs on the in-memory executor) and the Board on a free port of 127.0.0.1.
 */
export const boardWorld = <R, E>(ledger: Layer.Layer<R, E>, options: { readonly engine: boolean } = { engine: true }) =>
  Effect.gen(function*() {
    const memory = yield* InMemoryExecutor.make
    memory.scriptOthers(() => Script.hang)
    const stores = Layer.mergeAll(
      SqlRunStore.layer, SqlBrakeStore.layer, SqlItemStore.layer, SqlTriggerRefusals.layer, SqlAuditLog.layer, ReadModel.layer, WriteBackOutbox.layer
    ).pipe(
      Layer.provideMerge(ledger)
    )
    const engine = RunEngine.Default.pipe(
      Layer.provideMerge(Layer.mergeAll(memory.layer, LoopPolicies.layer(benchPolicies(OPEN_MIX.running)), TriggerCondition.layerAlways))
    )
    const feeds = Layer.mergeAll(
      settings,
      Redactor.layer([]),
      PollFailureFeed.layerEmpty,
      WorkerStatusFeed.layerStatic([]),
      Layer.succeed(BoardMoves, { move: () => Effect.void })
    )
    // Without the engine: the Board a standby serves (ADR 0109), reading the ledger as it is, acting on nothing.
    const readOnly = BoardServer.DefaultWithoutDependencies.pipe(
      Layer.provide(Layer.mergeAll(BoardViews.Default, BoardAccess.Default, AuditTrail.Default)),
      Layer.provideMerge(feeds),
      Layer.provideMerge(stores)
    )
    const board = BoardServer.Default.pipe(Layer.provideMerge(feeds), Layer.provideMerge(engine), Layer.provideMerge(stores))
    const context = yield* Layer.build(options.engine ? board : readOnly)
    return { memory, server: Context.get(context, BoardServer), store: runLedgerOf(context) }
  })
