import { Schema } from "effect"

/**
 * Who must be trusted (write access, or listed) for a trigger to count (ADR 0055). `collaborators`, the default: the
 * actor who triggered it, that is whoever added the labels the Loop depends on, or else the Item's author. `strict`:
 * that actor and the author as well. `anyone`: every GitHub user.
 */
export const TrustMode = Schema.Literal("collaborators", "strict", "anyone")
export type TrustMode = typeof TrustMode.Type

/** A GitHub login, optionally with the `[bot]` suffix GitHub Apps carry in the REST API. */
export const GitHubLogin = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/),
  Schema.annotations({ description: "a GitHub login (like `octocat` or `renovate[bot]`)" })
)

/** Who may trigger an issue or pull request Loop, and whose comments reach its `if:` and prompt. */
export interface TrustPolicy {
  readonly mode: TrustMode
  /** Logins trusted whatever their access, bots included. */
  readonly trustedAuthors: ReadonlyArray<string>
}

export const defaultTrustPolicy: TrustPolicy = { mode: "collaborators", trustedAuthors: [] }

/** GraphQL names a GitHub App `renovate`, REST `renovate[bot]`: both read as the same login. */
const normalizeLogin = (login: string): string => login.toLowerCase().replace(/\[bot\]$/, "")

/** True when the policy lists the login in `trusted_authors`. */
export const isListed = (policy: TrustPolicy, login: string): boolean =>
  policy.trustedAuthors.some((listed) => normalizeLogin(listed) === normalizeLogin(login))
