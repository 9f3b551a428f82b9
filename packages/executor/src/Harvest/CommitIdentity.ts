/** Who usine's commits are by: the agent's own (its clone's `user.name`/`user.email`) and those the harvest makes. */
export interface CommitIdentity {
  readonly name: string
  readonly email: string
}

/** Under a token: a name of usine's own, on an address no mail reaches. */
export const AGENT_IDENTITY: CommitIdentity = { name: "usine-agent", email: "usine-agent@users.noreply.usine.invalid" }

/** A GitHub App's bot, the way GitHub itself credits one: `<slug>[bot] <<user id>+<slug>[bot]@users.noreply.github.com>`. */
export const botIdentity = (login: string, userId: number): CommitIdentity => ({
  name: login,
  email: `${userId}+${login}@users.noreply.github.com`
})
