/** The repository permissions of a fine-grained personal access token the emulator models, GitHub's names. */
const TOKEN_PERMISSIONS = ["contents", "issues", "pull_requests"] as const
type TokenPermission = (typeof TOKEN_PERMISSIONS)[number]
export const ACCESS_LEVELS = ["none", "read", "write"] as const
type AccessLevel = (typeof ACCESS_LEVELS)[number]

/** What a token was granted; a permission it does not name is `none`. Metadata is always readable. */
type TokenGrants = Partial<Record<TokenPermission, AccessLevel>>

/** What a request needs of a fine-grained token. */
interface Needed {
  readonly permission: TokenPermission
  readonly level: Exclude<AccessLevel, "none">
}

const REPO_PATH = /^\/repos\/[^/]+\/[^/]+\/([^/]+)/

/**
 * The permission a REST request needs, by its path's first segment under the repository (GitHub's permission
 * names): pulls are `pull_requests`, issues and labels `issues`, git data, contents, commits and branches
 * `contents`; a GET needs read, anything else write. Undefined for what any token may do (the repository's
 * metadata, `/user`, the rate limit).
 */
export const neededFor = (method: string, path: string): Needed | undefined => {
  const segment = REPO_PATH.exec(path)?.[1]
  const level = method === "GET" || method === "HEAD" ? "read" : "write"
  switch (segment) {
    case "pulls":
      return { permission: "pull_requests", level }
    case "issues":
    case "labels":
      return { permission: "issues", level }
    case "git":
    case "contents":
    case "commits":
    case "branches":
      return { permission: "contents", level }
    default:
      return undefined
  }
}

const rank = (level: AccessLevel) => ACCESS_LEVELS.indexOf(level)

/**
 * Fine-grained tokens and their grants. A token's account keeps its role on each repository (what `GET /repos`
 * `permissions` reports, as on GitHub); the token narrows it: a request beyond its grants is GitHub's 403 "Resource
 * not accessible by personal access token" with `X-Accepted-GitHub-Permissions` naming what it lacks.
 */
export class FineGrainedTokens {
  private readonly grants = new Map<string, TokenGrants>()

  grant(token: string, grants: TokenGrants): void {
    this.grants.set(token, grants)
  }

  /** `X-Accepted-GitHub-Permissions` for a request the token may not make (`pull_requests=write`); else undefined. */
  refusal(token: string | undefined, needed: Needed | undefined): string | undefined {
    const grants = token === undefined ? undefined : this.grants.get(token)
    if (grants === undefined || needed === undefined) return undefined
    return rank(grants[needed.permission] ?? "none") >= rank(needed.level) ? undefined : `${needed.permission}=${needed.level}`
  }
}
