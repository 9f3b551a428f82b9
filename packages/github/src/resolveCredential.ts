import { createPrivateKey } from "node:crypto"
import { Effect, type Redacted } from "effect"
import type { AppCredentials } from "./AppInstallationMint"
import { appTokenSupply, type GitHubCredential, type TokenSupply } from "./GitHubCredential"
import { GitHubTokenMissing, ownerOnlyFile, resolveToken, type TokenSources } from "./resolveToken"

/** `github.app` with its key file's path resolved. */
interface AppSource {
  readonly appId: number
  readonly privateKeyFile: string
  readonly installationId: number | undefined
}

/** How usine authenticates: a token found at start, or a GitHub App whose installation tokens are minted as needed. */
export type ResolvedCredential =
  | { readonly _tag: "Token"; readonly token: Redacted.Redacted<string> }
  | { readonly _tag: "App"; readonly app: AppCredentials; readonly supply: TokenSupply }

/** What each consumer is handed: the token, or the App's supply. */
export const credentialOf = (resolved: ResolvedCredential): GitHubCredential =>
  resolved._tag === "Token" ? resolved.token : resolved.supply

const privateKey = (path: string) =>
  Effect.flatMap(ownerOnlyFile("github.app.private_key_file", path), (pem) =>
    Effect.try({
      try: () => (createPrivateKey(pem), pem),
      catch: () =>
        new GitHubTokenMissing({ detail: `github.app.private_key_file ${path} is not a PEM private key (the .pem file GitHub generates for the App)` })
    })
  )

/**
 * The App when `github.app` is set (its key read from a file only its owner reads; nothing is minted yet), else the
 * token by `resolveToken`'s order.
 */
export const resolveCredential = (
  sources: TokenSources & {
    readonly app: AppSource | undefined
    readonly repositories: ReadonlyArray<string>
    readonly apiUrl: string
  }
): Effect.Effect<ResolvedCredential, GitHubTokenMissing> => {
  const source = sources.app
  return source === undefined
    ? Effect.map(resolveToken(sources), (token) => ({ _tag: "Token" as const, token }))
    : Effect.gen(function* () {
        const app: AppCredentials = {
          appId: source.appId,
          privateKey: yield* privateKey(source.privateKeyFile),
          ...(source.installationId === undefined ? {} : { installationId: source.installationId }),
          repositories: sources.repositories,
          baseUrl: sources.apiUrl
        }
        return { _tag: "App" as const, app, supply: yield* appTokenSupply(app) }
      })
}
