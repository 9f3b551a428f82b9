/** A repository role, weakest first; GitHub's `permission` strings. */
export const PERMISSIONS = ["none", "read", "triage", "write", "maintain", "admin"] as const
export type Permission = (typeof PERMISSIONS)[number]

/** True when `held` grants at least `needed`. */
export const atLeast = (held: Permission, needed: Permission): boolean =>
  PERMISSIONS.indexOf(held) >= PERMISSIONS.indexOf(needed)

/** A registered account, its token, and its role on each repository. */
export interface SimUser {
  readonly id: number
  readonly login: string
  readonly token: string
  readonly type: "User" | "Bot"
  readonly createdAt: number
  /** Role on repositories without an entry in `repositories`. */
  defaultPermission: Permission
  /** Role per repository, keyed by lowercase `owner/name`. */
  readonly repositories: Map<string, Permission>
}
