import { labelsToCheck } from "@usine/core/trust/labelsToCheck"
import type { Labeller } from "../LabelActors"

/** What names `labeller` and `approver` for one Run, and who is never asked. */
export interface ReviewerContext {
  /** The Loop's `if:`: the labels it reads are the ones whose labeller triggered the Run. */
  readonly ifSource: string
  /** When the trigger saw the change that opened the Run, epoch ms. */
  readonly receivedAt: number
  /** The Run's newest approval as its audit row tells it; none if nobody approved it. */
  readonly approval: { readonly actor: string; readonly reason: string } | undefined
  /** usine's own account: the pull request's author, who cannot review it. */
  readonly self: string
  /** `board.operator`: the login a Board approval (audit actor `operator`) stands for. */
  readonly operator?: string | undefined
}

/** Who approved the Run as a GitHub login: the Board's operator when the Board approved it and `board.operator` names them. */
const approverOf = (context: ReviewerContext): string | undefined =>
  context.approval?.actor === "operator" ? context.operator : undefined

/** The logins to ask, each once, and a note for each reviewer skipped. */
interface NamedReviewers {
  readonly logins: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

/**
 * Who triggered the Run, as the trust check judged it: of the labels the `if:` reads, the newest added by a person
 * (not a bot, not usine itself, whose status labels an earlier Run put on) before the trigger saw the change (GitHub's times are to the second, the trigger's to the millisecond).
 */
export const labellerOf = (context: Pick<ReviewerContext, "ifSource" | "receivedAt" | "self">, labellers: ReadonlyMap<string, Labeller>): string | undefined =>
  labelsToCheck(context.ifSource, [...labellers.keys()])
    .flatMap((label) => {
      const labeller = labellers.get(label)
      const byPerson = labeller !== undefined && !labeller.isBot && labeller.login.toLowerCase() !== context.self.toLowerCase()
      return byPerson && Date.parse(labeller.at) <= context.receivedAt ? [labeller] : []
    })
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at))[0]?.login

/**
 * Names the configured reviewers: a login as written, `labeller` from the issue events, `approver` from the Run's
 * approval in the ledger. One nobody can name, and usine's own account, are skipped with a note instead of failing the write.
 */
export const nameReviewers = (
  reviewers: ReadonlyArray<string>,
  context: ReviewerContext,
  labellers: ReadonlyMap<string, Labeller> | undefined
): NamedReviewers => {
  const logins = new Map<string, string>()
  const notes: Array<string> = []
  for (const reviewer of reviewers) {
    const named = reviewer === "labeller"
      ? labellers === undefined ? undefined : labellerOf(context, labellers)
      : reviewer === "approver" ? approverOf(context) : reviewer
    if (named === undefined) {
      notes.push(reviewer === "labeller"
        ? "reviewer labeller skipped: no person added a label the Loop's if: reads before the Run"
        : context.approval === undefined
        ? "reviewer approver skipped: nobody approved the Run (its Loop starts without approval)"
        // An approval's audit row holds its actor and reason only: the Board's one token names no GitHub login.
        : `reviewer approver skipped: the Run's approval (${context.approval.actor}, ${context.approval.reason}) names no GitHub login (set board.operator)`)
    } else if (named.toLowerCase() === context.self.toLowerCase()) {
      notes.push(`reviewer ${reviewer} skipped: ${named} is usine's own account, the pull request's author`)
    } else if (!logins.has(named.toLowerCase())) {
      logins.set(named.toLowerCase(), named)
    }
  }
  return { logins: [...logins.values()], notes }
}
