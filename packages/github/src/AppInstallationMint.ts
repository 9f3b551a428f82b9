import { createAppAuth } from "@octokit/auth-app"
import { Octokit } from "@octokit/core"
import { Data, Effect } from "effect"
import type { MintedToken } from "./InstallationToken"

/** The App could not get an installation token: a wrong id or key, no installation on the repository, GitHub down. */
export class AppAuthFailed extends Data.TaggedError("AppAuthFailed")<{ readonly appId: number; readonly reason: string }> {
  override get message() {
    return `GitHub App ${this.appId} could not authenticate: ${this.reason} (check github.app.id, github.app.private_key_file and the App's installation)`
  }
}

/** What minting needs: the App, its private key (PEM), its installation or the repositories to find it by. */
export interface AppCredentials {
  readonly appId: number
  readonly privateKey: string
  readonly installationId?: number
  /** `owner/name`; the installation is the one on the first, when `installationId` is absent. */
  readonly repositories: ReadonlyArray<string>
  readonly baseUrl: string
}

/**
 * A mint of fresh installation tokens through `@octokit/auth-app` (always `refresh: true`: the caching and the
 * refresh timing are `makeInstallationToken`'s, ADR 0070). The installation is looked up once, on first mint.
 */
export const appInstallationMint = (app: AppCredentials): Effect.Effect<MintedToken, AppAuthFailed> => {
  const { request } = new Octokit({ baseUrl: app.baseUrl })
  const auth = createAppAuth({ appId: app.appId, privateKey: app.privateKey, request })
  const failed = (error: unknown) => new AppAuthFailed({ appId: app.appId, reason: error instanceof Error ? error.message : String(error) })
  let installationId = app.installationId
  const find = async (): Promise<number> => {
    if (installationId !== undefined) return installationId
    const [owner, repo] = (app.repositories[0] ?? "").split("/")
    if (owner === undefined || repo === undefined) throw new Error("no repository to find the App's installation by")
    const { token } = await auth({ type: "app" })
    const found = await request("GET /repos/{owner}/{repo}/installation", { owner, repo, headers: { authorization: `bearer ${token}` } })
    installationId = found.data.id
    return found.data.id
  }
  return Effect.tryPromise({
    try: async () => {
      const minted = await auth({ type: "installation", installationId: await find(), refresh: true })
      return { token: minted.token, expiresAtMs: new Date(minted.expiresAt).getTime() }
    },
    catch: failed
  })
}
