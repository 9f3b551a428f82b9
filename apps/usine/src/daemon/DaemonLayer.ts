import { Layer } from "effect"
import type { LedgerView } from "@usine/board/BoardLedger"
import type { Executor } from "@usine/engine/Executor"
import { Redactor } from "@usine/core/text/Redactor"
import { ConfigState } from "../ConfigState"
import { BoardLayer } from "../layers/BoardLayer"
import { EngineLayer } from "../layers/EngineLayer"
import { GitHubLayer } from "../layers/GitHubLayer"
import { LedgerLayer } from "../layers/LedgerLayer"
import { TriggersLayer } from "../layers/TriggersLayer"
import { WorkersReloadLayer } from "../layers/WorkersReloadLayer"
import { logAttempts } from "./logAttempts"
import type { StartupPlan } from "./StartupPlan"

/**
 * The whole daemon, in the order it starts: configuration and redactor, the ledger (lock, migrations), GitHub, the
 * executor, the engine (workspace recovery, reconcile) with its Workers following reloads, the triggers, the Board.
 * The executor is given, so the demo and the tests wire the same daemon as `usine up`.
 */
export const DaemonLayer = <E, R>(
  plan: StartupPlan,
  executor: Layer.Layer<Executor, E, R>,
  /** What the Board says of the ledger: which engine, and on PostgreSQL this node's lease (ADR 0109). */
  ledger: LedgerView = { engine: plan.ledger._tag === "sqlite" ? "SQLite" : "PostgreSQL", standby: false }
) =>
  BoardLayer(plan.signIn, plan.login, ledger).pipe(
    Layer.provideMerge(TriggersLayer),
    Layer.provideMerge(WorkersReloadLayer(plan.configFile).pipe(Layer.provideMerge(EngineLayer))),
    Layer.provideMerge(logAttempts(executor)),
    Layer.provideMerge(GitHubLayer({ token: plan.token, apiUrl: plan.config.github.apiUrl })),
    Layer.provideMerge(
      Layer.mergeAll(ConfigState.layer(plan.config), Redactor.layer(plan.secrets), LedgerLayer(plan.ledger, plan.node))
    )
  )
