import { Effect } from "effect"
import type { Context, Hono } from "hono"
import { errorBody, NotFound, Unauthorized } from "../world/ApiError"
import { jwtIssuer, verifyAppJwt } from "../world/AppJwt"
import { isoSeconds } from "../world/SimClock"
import type { SimApp, SimInstallation } from "../world/SimApps"
import type { SimWorld } from "../world/SimWorld"
import { userJson } from "./json/userJson"
import type { ApiEnv } from "./route"

/** The permissions every emulated installation is granted (a usine App's least privilege). */
const PERMISSIONS = {
  metadata: "read",
  issues: "write",
  contents: "write",
  pull_requests: "write",
  checks: "read",
  statuses: "read"
} as const

const bearer = (header: string | undefined) => header?.match(/^bearer\s+(\S+)$/i)?.[1]

/** The App a request's JWT proves it is, or GitHub's 401. */
const appOf = (world: SimWorld, c: Context<ApiEnv>): Effect.Effect<SimApp, Unauthorized> => {
  const jwt = bearer(c.req.header("authorization"))
  if (jwt === undefined) return Effect.fail(new Unauthorized({ reason: "missing" }))
  const app = world.apps.apps.get(jwtIssuer(jwt) ?? -1)
  if (app === undefined) return Effect.fail(new Unauthorized({ reason: "bad" }))
  return Effect.as(verifyAppJwt(jwt, { appId: app.id, publicKeyPem: app.publicKeyPem, nowMs: world.now() }), app)
}

const installationJson = (world: SimWorld, app: SimApp, installation: SimInstallation) => ({
  id: installation.id,
  account: userJson(world, installation.account),
  app_id: app.id,
  app_slug: app.slug,
  target_type: "Organization",
  repository_selection: "selected",
  permissions: PERMISSIONS,
  events: ["issues", "issue_comment", "pull_request", "pull_request_review"],
  access_tokens_url: `${world.baseUrl}/app/installations/${installation.id}/access_tokens`,
  created_at: isoSeconds(world.now()),
  updated_at: isoSeconds(world.now())
})

/**
 * The App endpoints that take the App's JWT instead of a token: an installation's access token, and the
 * installation on a repository. Installed ahead of the token pipeline, which would refuse a JWT.
 */
export const appRoutes = (api: Hono<ApiEnv>, world: SimWorld): void => {
  const answer = (c: Context<ApiEnv>, effect: Effect.Effect<Response, Unauthorized | NotFound>) =>
    Effect.runPromise(effect.pipe(Effect.catchAll((error) => Effect.succeed(c.json(errorBody(error), error.status)))))

  api.post("/app/installations/:id/access_tokens", (c) =>
    answer(c, Effect.gen(function* () {
      const app = yield* appOf(world, c)
      const found = world.apps.installation(Number(c.req.param("id")))
      if (found === undefined || found.app.id !== app.id) return yield* Effect.fail(new NotFound({ resource: "installation" }))
      const minted = world.apps.mint(app, found.installation, world.now())
      return c.json(
        {
          token: minted.token,
          expires_at: isoSeconds(minted.expiresAtMs),
          permissions: PERMISSIONS,
          repository_selection: "selected" as const
        },
        201
      )
    }))
  )

  api.get("/repos/:owner/:repo/installation", (c) =>
    answer(c, Effect.gen(function* () {
      const app = yield* appOf(world, c)
      const installation = world.apps.installationFor(app, `${c.req.param("owner")}/${c.req.param("repo")}`)
      if (installation === undefined) return yield* Effect.fail(new NotFound({ resource: "installation" }))
      return c.json(installationJson(world, app, installation))
    }))
  )

  api.get("/app", (c) =>
    answer(c, Effect.map(appOf(world, c), (app) => c.json({ id: app.id, slug: app.slug, name: app.slug, owner: null, permissions: PERMISSIONS })))
  )
}
