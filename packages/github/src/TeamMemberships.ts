import { Effect } from "effect"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"

/**
 * Whether a person is an active member of an organization's team, read with the daemon's own client (an App needs the
 * organization's Members permission, a token `read:org`). Someone outside the team (404) is not; a pending invitation
 * does not count.
 */
export class TeamMemberships extends Effect.Service<TeamMemberships>()("usine/TeamMemberships", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    return {
      /** `org/team-slug` and a login: true for an active member or maintainer. */
      isMember: Effect.fn("TeamMemberships.isMember")(function* (org: string, team: string, login: string) {
        return yield* client
          .request("GET /orgs/{org}/teams/{team_slug}/memberships/{username}", { org, team_slug: team, username: login })
          .pipe(
            Effect.map((answer) => answer.data.state === "active"),
            Effect.catchIf((error) => error instanceof GitHubRequestFailed && error.status === 404, () => Effect.succeed(false))
          )
      })
    } as const
  })
}) {}
