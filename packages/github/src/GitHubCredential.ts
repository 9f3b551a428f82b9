import { Effect, Redacted } from "effect"
import { type AppCredentials, appInstallationMint, type AppAuthFailed } from "./AppInstallationMint"
import { makeInstallationToken } from "./InstallationToken"

/** The token to use now: an App's installation token is minted, or refreshed, when it is asked for. */
export type TokenSupply = Effect.Effect<Redacted.Redacted<string>, AppAuthFailed>

/**
 * What usine authenticates to GitHub with: a fixed token (`github.token`, a token file, the environment, `gh`), or a
 * GitHub App's supply of installation tokens. Every consumer asks `currentToken` at each use and keeps no copy.
 */
export type GitHubCredential = Redacted.Redacted<string> | TokenSupply

/** The token for one use (a request, a git command). */
export const currentToken = (credential: GitHubCredential): TokenSupply =>
  Redacted.isRedacted(credential) ? Effect.succeed(credential) : credential

/** The App's installation tokens, minted on first use and refreshed before they expire (ADR 0070, 0078). */
export const appTokenSupply = (app: AppCredentials): Effect.Effect<TokenSupply> =>
  Effect.map(makeInstallationToken(appInstallationMint(app)), ({ current }) => Effect.map(current, Redacted.make))
