import { Option } from "effect"
import type { HeldAttempt } from "@usine/store/AttemptPatches"

/**
 * What an Attempt after the pull-request gate does (ADR 0063): publish the held work (Approve PR: no agent, no
 * verify, push and pull request), or give the reviewer's text to the agent (Request changes). Every later Attempt
 * of the Run follows the newest held Attempt's review, so an automatic or operator retry does the same.
 */
export type ReviewDirective =
  | {
    readonly _tag: "Publish"
    readonly heldAttempt: number
    readonly head: string
    readonly verification?: string | undefined
    /** The agent's own commit subjects, kept with the held work: the pull request is titled after them. */
    readonly subjects?: ReadonlyArray<string> | undefined
  }
  | { readonly _tag: "Changes"; readonly heldAttempt: number; readonly text: string }

/** The directive of the Run's newest held Attempt; none before any review. */
export const reviewDirectiveOf = (held: Option.Option<HeldAttempt>): ReviewDirective | undefined => {
  if (Option.isNone(held) || Option.isNone(held.value.review)) return undefined
  const review = held.value.review.value
  const heldAttempt = held.value.attempt.number
  return review._tag === "Approved"
    ? {
      _tag: "Publish",
      heldAttempt,
      head: held.value.held.head,
      verification: held.value.held.verification,
      ...(held.value.held.subjects === undefined ? {} : { subjects: held.value.held.subjects })
    }
    : { _tag: "Changes", heldAttempt, text: review.text }
}

/** The prompt of an Attempt that answers a Request changes: the task, then the reviewer's words. */
export const changesPrompt = (task: string, text: string): string =>
  `${task}\n\nA reviewer read your change before its pull request and asks for changes:\n\n${text}\n\nYour earlier work is in the worktree; change it as asked.`
