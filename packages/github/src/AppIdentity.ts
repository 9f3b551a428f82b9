import { createAppAuth } from "@octokit/auth-app"
import { Octokit } from "@octokit/core"
import { Effect } from "effect"
import { AppAuthFailed, type AppCredentials } from "./AppInstallationMint"

/**
 * The login the App's installation tokens act as, `<slug>[bot]`, from `GET /app` under the App's JWT: what usine
 * calls its own account (its comments, its pull requests). An installation token may not ask `GET /user`.
 */
export const appBotLogin = (app: Pick<AppCredentials, "appId" | "privateKey" | "baseUrl">): Effect.Effect<string, AppAuthFailed> =>
  Effect.tryPromise({
    try: async () => {
      const { request } = new Octokit({ baseUrl: app.baseUrl })
      const { token } = await createAppAuth({ appId: app.appId, privateKey: app.privateKey, request })({ type: "app" })
      const answer = await request("GET /app", { headers: { authorization: `bearer ${token}` } })
      const slug = answer.data?.slug
      if (slug === undefined || slug === "") throw new Error("GET /app answered no slug")
      return `${slug}[bot]`
    },
    catch: (error) => new AppAuthFailed({ appId: app.appId, reason: error instanceof Error ? error.message : String(error) })
  })
