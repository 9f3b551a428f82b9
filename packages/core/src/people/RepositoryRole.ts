import { Schema } from "effect"

/** A person's role on a repository, weakest first: GitHub's `role_name` for its five built-in roles. */
const REPOSITORY_ROLES = ["none", "read", "triage", "write", "maintain", "admin"] as const
export const RepositoryRole = Schema.Literal(...REPOSITORY_ROLES)
export type RepositoryRole = typeof RepositoryRole.Type

/** True when `held` grants at least what `needed` does. */
export const atLeast = (held: RepositoryRole, needed: RepositoryRole): boolean =>
  REPOSITORY_ROLES.indexOf(held) >= REPOSITORY_ROLES.indexOf(needed)

/**
 * The built-in role GitHub's permission answer stands for: its `role_name` when it is one of the five (or `none`),
 * else (an organization's custom role) the legacy `permission`, which folds each custom role onto its base.
 */
export const roleOfPermission = (answer: { readonly permission: string; readonly role_name?: string | undefined }): RepositoryRole => {
  const named = REPOSITORY_ROLES.find((role) => role === answer.role_name)
  if (named !== undefined) return named
  return REPOSITORY_ROLES.find((role) => role === answer.permission) ?? "none"
}
