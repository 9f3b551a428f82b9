import type { components } from "@octokit/openapi-types"
import type { SimWorld } from "../../world/SimWorld"

type SimpleUser = components["schemas"]["simple-user"]

/** GitHub's `simple-user` for `login` (registering the account if the emulator never heard of it). */
export const userJson = (world: SimWorld, login: string): SimpleUser => {
  const user = world.account(login)
  const api = `${world.baseUrl}/users/${user.login}`
  return {
    login: user.login,
    id: user.id,
    node_id: `U_sim${user.id}`,
    avatar_url: `${world.baseUrl}/avatars/${user.login}`,
    gravatar_id: "",
    url: api,
    html_url: `${world.baseUrl}/${user.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: user.type,
    user_view_type: "public",
    site_admin: false
  }
}
