import type { components } from "@octokit/openapi-types"
import { Effect } from "effect"
import type { Hono } from "hono"
import { isoSeconds } from "../world/SimClock"
import { atLeast, type SimUser } from "../world/SimUser"
import type { RateLimits } from "../http/RateLimits"
import type { SimWorld } from "../world/SimWorld"
import { repositoryJson } from "./json/repositoryJson"
import { userJson } from "./json/userJson"
import { run, type ApiEnv } from "./route"

/** GitHub's legacy `permission` field folds maintain into write and triage into read. */
const legacyPermission = (role: string) => (role === "maintain" ? "write" : role === "triage" ? "read" : role)

/** Repository metadata, collaborator permission, the authenticated user and the rate limit. */
export const repositoryRoutes = (app: Hono<ApiEnv>, world: SimWorld, limits: RateLimits): void => {
  app.get("/repos/:owner/:repo", (c) =>
    run(c, Effect.map(world.visibleRepository(c.get("user"), c.req.param("owner"), c.req.param("repo")), (repo) =>
      c.json(repositoryJson(world, repo, c.get("user").login))
    ))
  )

  app.get("/repos/:owner/:repo/collaborators/:username/permission", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* world.visibleRepository(c.get("user"), c.req.param("owner"), c.req.param("repo"))
      const user = yield* world.user(c.req.param("username"))
      const role = world.permission(user.login, repo)
      return c.json({
        permission: legacyPermission(role),
        role_name: role,
        user: {
          ...userJson(world, user.login),
          permissions: {
            admin: atLeast(role, "admin"),
            maintain: atLeast(role, "maintain"),
            push: atLeast(role, "write"),
            triage: atLeast(role, "triage"),
            pull: atLeast(role, "read")
          },
          role_name: role
        }
      } satisfies components["schemas"]["repository-collaborator-permission"])
    }))
  )

  /** GitHub's `public-user` of an account: what `GET /users/{username}` answers, and `GET /user` extends. */
  const publicUser = (user: SimUser) => ({
    ...userJson(world, user.login),
    name: user.login,
    company: null,
    blog: "",
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: isoSeconds(user.createdAt),
    updated_at: isoSeconds(user.createdAt)
  }) satisfies components["schemas"]["public-user"]

  app.get("/user", (c) =>
    c.json({
      ...publicUser(c.get("user")),
      private_gists: 0,
      total_private_repos: 0,
      owned_private_repos: 0,
      disk_usage: 0,
      collaborators: 0,
      two_factor_authentication: false
    } satisfies components["schemas"]["private-user"])
  )

  // A bot's id is how a commit names it: `<id>+<slug>[bot]@users.noreply.github.com`.
  app.get("/users/:username", (c) => run(c, Effect.map(world.user(c.req.param("username")), (user) => c.json(publicUser(user)))))

  app.get("/rate_limit", (c) => {
    const user = c.get("user")
    const view = (resource: "core" | "graphql") => {
      const bucket = limits.bucket(user, resource)
      return { limit: bucket.limit, remaining: bucket.limit - bucket.used, used: bucket.used, reset: Math.ceil(bucket.resetAt / 1000) }
    }
    const core = view("core")
    const search = { limit: 30, remaining: 30, used: 0, reset: core.reset }
    const overview: components["schemas"]["rate-limit-overview"] = { resources: { core, graphql: view("graphql"), search }, rate: core }
    return c.json(overview)
  })
}
