import { Schema } from "effect"

/** Approve PR: the held work goes on to push and pull request. */
export class ReviewApproved extends Schema.TaggedClass<ReviewApproved>()("Approved", { at: Schema.Number }) {}

/** Request changes: the text goes to the agent in the next Attempt's prompt. */
export class ChangesRequested extends Schema.TaggedClass<ChangesRequested>()("ChangesRequested", {
  text: Schema.String,
  at: Schema.Number
}) {}

/** The operator's answer at the pull-request gate, stored with the held Attempt (ADR 0063). Reject cancels the Run. */
export const Review = Schema.Union(ReviewApproved, ChangesRequested)
export type Review = typeof Review.Type

/** The largest diff stored with a held Attempt; a longer one is cut there, with a note. */
export const HELD_PATCH_MAX_BYTES = 256 * 1024

/** A held Attempt's unified diff as stored: `cut` when it was longer than `HELD_PATCH_MAX_BYTES`. */
export interface HeldPatch {
  readonly text: string
  readonly cut: boolean
}

/** Cuts a diff to the stored bound, on a line boundary, saying how much was left out. */
export const boundPatch = (patch: string): HeldPatch => {
  const encoded = new TextEncoder().encode(patch)
  const bytes = encoded.length
  if (bytes <= HELD_PATCH_MAX_BYTES) return { text: patch, cut: false }
  const head = new TextDecoder().decode(encoded.subarray(0, HELD_PATCH_MAX_BYTES))
  const kept = head.slice(0, Math.max(0, head.lastIndexOf("\n") + 1))
  return { text: `${kept}… diff cut at ${HELD_PATCH_MAX_BYTES / 1024} KiB of ${Math.ceil(bytes / 1024)} KiB\n`, cut: true }
}
