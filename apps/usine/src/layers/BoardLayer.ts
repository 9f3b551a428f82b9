import { Effect, Layer } from "effect"
import { BoardLedger, type LedgerView } from "@usine/board/BoardLedger"
import { BoardServer } from "@usine/board/BoardServer"
import { BoardSettings } from "@usine/board/BoardSettings"
import { ConfigState } from "../ConfigState"
import { DaemonPollFailureFeed } from "../daemon/DaemonPollFailureFeed"
import { DaemonWorkerStatusFeed } from "../daemon/DaemonWorkerStatusFeed"
import { GitHubBoardMoves } from "../daemon/GitHubBoardMoves"
import { GitHubBoardSignIn, GitHubItemLabellers, GitHubRepositoryRoles, GitHubTeamMembers, type SignInApp } from "../daemon/GitHubBoardPeople"
import { derivedSnapshot } from "../daemon/derivedSnapshot"
import { BoardRoutesLayer } from "./BoardRoutesLayer"

/** The Board's settings as of now: columns, repositories and Loops follow a reload; the address does not. */
export const LiveBoardSettings = Layer.effect(
  BoardSettings,
  Effect.map(ConfigState, (state) => ({ current: derivedSnapshot(state.unsafeGet, BoardSettings.fromConfig) }))
)

/**
 * The Board on its configured address, with the daemon's feeds: poll failures, Workers, card moves on GitHub, people's
 * roles, who labelled an Item, team membership for `board.allow`, and their sign-in with GitHub; and the routes served
 * beside it (webhooks, `/metrics`), which read the same settings.
 */
export const BoardLayer = (signIn: SignInApp | undefined, self: string, ledger: LedgerView) =>
  BoardServer.Default.pipe(
    Layer.provide(Layer.mergeAll(
      DaemonPollFailureFeed,
      DaemonWorkerStatusFeed,
      GitHubBoardMoves,
      BoardRoutesLayer,
      GitHubRepositoryRoles,
      GitHubTeamMembers,
      GitHubItemLabellers(self),
      GitHubBoardSignIn(signIn),
      Layer.succeed(BoardLedger, { view: Effect.succeed(ledger) })
    )),
    Layer.provide(LiveBoardSettings)
  )
