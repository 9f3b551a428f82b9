import type { RepositoryRole } from "@usine/core/people/RepositoryRole"

/**
 * The least role on the repository each Board action needs from a signed-in person (ADR 0098): triage handles
 * Runs, write decides what an agent does and what leaves the machine, admin sets Loops and budgets.
 */
export const ROLE_NEEDED = {
  retry: "triage",
  resolveFailure: "triage",
  cancel: "triage",
  move: "triage",
  approve: "write",
  editAndRetry: "write",
  intervene: "write",
  approvePullRequest: "write",
  requestChanges: "write",
  reject: "write",
  pause: "admin",
  resetCycleBudget: "admin",
  raiseCap: "admin",
  clearNoProgress: "admin"
} as const satisfies Record<string, RepositoryRole>

export type BoardAction = keyof typeof ROLE_NEEDED
