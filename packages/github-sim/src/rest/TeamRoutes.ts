import type { components } from "@octokit/openapi-types"
import { Effect } from "effect"
import type { Hono } from "hono"
import { NotFound } from "../world/ApiError"
import type { SimWorld } from "../world/SimWorld"
import { run, type ApiEnv } from "./route"

/**
 * Organizations' teams: `GET /orgs/{org}/teams/{team_slug}/memberships/{username}` answers the membership (200) or
 * 404 for someone outside the team, as GitHub does for a token that may read the organization's members.
 */
export const teamRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  app.get("/orgs/:org/teams/:team/memberships/:username", (c) =>
    run(c, Effect.gen(function* () {
      const { org, team, username } = c.req.param()
      const role = world.teams.get(`${org}/${team}`.toLowerCase())?.get(username.toLowerCase())
      if (role === undefined) return yield* Effect.fail(new NotFound({ resource: `membership of ${username} in ${org}/${team}` }))
      return c.json({
        url: `${world.baseUrl}/organizations/${org}/team/${team}/memberships/${username}`,
        role,
        state: "active"
      } satisfies components["schemas"]["team-membership"])
    }))
  )
}
