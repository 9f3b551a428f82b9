import type { SimWorld } from "../world/SimWorld"

/** An `Actor` (a `User` or a `Bot`), as author, viewer or merger. */
export const actorNode = (world: SimWorld, login: string) => {
  const user = world.account(login)
  const url = `${world.baseUrl}/${user.login}`
  return {
    __typename: user.type,
    id: `${user.type === "Bot" ? "BOT" : "U"}_sim${user.id}`,
    databaseId: user.id,
    login: user.login,
    name: user.login,
    url,
    resourcePath: `/${user.login}`,
    avatarUrl: `${world.baseUrl}/avatars/${user.login}`
  }
}
