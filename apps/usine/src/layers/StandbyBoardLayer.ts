import { Effect, Layer } from "effect"
import { AuditTrail } from "@usine/board/AuditTrail"
import { BoardAccess } from "@usine/board/BoardAccess"
import { BoardServer } from "@usine/board/BoardServer"
import { BoardLedger } from "@usine/board/BoardLedger"
import { BoardViews } from "@usine/board/BoardViews"
import { PollFailureFeed } from "@usine/board/PollFailureFeed"
import { WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { Redactor } from "@usine/core/text/Redactor"
import { GitHubClient } from "@usine/github/GitHubClient"
import { ConfigState } from "../ConfigState"
import { GitHubBoardSignIn, GitHubItemLabellers, GitHubRepositoryRoles, GitHubTeamMembers } from "../daemon/GitHubBoardPeople"
import type { StartupPlan } from "../daemon/StartupPlan"
import { LiveBoardSettings } from "./BoardLayer"
import { LedgerLayer } from "./LedgerLayer"

/**
 * A standby's Board on a shared PostgreSQL ledger (ADR 0109): the same pages on the same address, read from the
 * ledger the leader writes, people signed in as on the leader's; no engine, so no actions (each is refused with who
 * leads, `leader`), and no polls or Workers of its own to report.
 */
const StandbyBoardLayer = (plan: StartupPlan, leader: Effect.Effect<string>) =>
  BoardServer.DefaultWithoutDependencies.pipe(
    Layer.provide(Layer.mergeAll(BoardViews.Default, BoardAccess.Default, AuditTrail.Default)),
    Layer.provide(Layer.mergeAll(
      Layer.succeed(BoardLedger, {
        view: Effect.map(leader, (now) => ({ engine: "PostgreSQL" as const, node: plan.node, leader: now, standby: true }))
      }),
      PollFailureFeed.layerEmpty,
      WorkerStatusFeed.layerStatic([]),
      GitHubRepositoryRoles,
      GitHubTeamMembers,
      GitHubItemLabellers(plan.login),
      GitHubBoardSignIn(plan.signIn)
    )),
    Layer.provide(LiveBoardSettings),
    Layer.provide(GitHubClient.Default({ token: plan.token, apiUrl: plan.config.github.apiUrl })),
    Layer.provide(Layer.mergeAll(ConfigState.layer(plan.config), Redactor.layer(plan.secrets), LedgerLayer(plan.ledger, plan.node)))
  )

/** Serves the standby's Board until interrupted (this node leads, or stops); a failure to serve it is only logged. */
export const serveStandbyBoard = (plan: StartupPlan, leader: Effect.Effect<string>) =>
  Layer.launch(StandbyBoardLayer(plan, leader)).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("the standby's Board could not be served", cause))
  )
