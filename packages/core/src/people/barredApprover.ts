import type { PullRequestApprover, StartApprover } from "../config/ApprovalConfig"

/** Who a four-eyes rule bars from approving a gate, and what they did. */
interface Barred {
  readonly login: string
  readonly because: "labelled" | "approved"
}

/** What a Run's record says about the people behind it. */
interface GateFacts {
  /** Who labelled the Item into the Loop, if a person did. */
  readonly labeller: string | undefined
  /** Who approved the start on the Board, if a signed-in person did. */
  readonly startApprover: string | undefined
  /** Whether the Loop asks for a start approval at all. */
  readonly startRequired: boolean
}

/**
 * The person a gate's rule bars (ADR 0103), if any. `other_than_labeller` bars the labeller; `other_than_approver`
 * bars who approved the start, or, when the Loop starts without approval, the labeller who started it. A fact
 * nobody can name (an approval with the Board token, a label added by a bot) bars nobody.
 */
export const barredApprover = (rule: StartApprover | PullRequestApprover, facts: GateFacts): Barred | undefined => {
  const labelled = facts.labeller === undefined ? undefined : { login: facts.labeller, because: "labelled" as const }
  if (rule === "other_than_labeller") return labelled
  if (rule === "other_than_approver") {
    if (!facts.startRequired) return labelled
    return facts.startApprover === undefined ? undefined : { login: facts.startApprover, because: "approved" }
  }
  return undefined
}

/** Whether two GitHub logins are one account (GitHub compares them without case). */
export const sameLogin = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()
