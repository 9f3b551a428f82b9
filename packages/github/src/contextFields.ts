import { sanitizeText } from "@usine/core/trust/sanitizeText"
import type { ContextComment, ItemFields } from "./ItemFields"

/**
 * The fields a Loop's `if:` and prompt see (ADR 0033): titles, bodies, comments and reviews with what GitHub hides
 * removed, and the comments and reviews of untrusted authors left out. `commentCount` still counts every comment.
 * The content hash is taken from the raw payload, so an edit that only changes hidden text is still a change.
 */
export const contextFields = (
  fields: ItemFields,
  trusts: (comment: ContextComment) => boolean
): ItemFields => ({
  ...fields,
  title: sanitizeText(fields.title),
  body: sanitizeText(fields.body),
  comments: fields.comments.filter(trusts).map((comment) => ({ ...comment, body: sanitizeText(comment.body) })),
  reviews: fields.reviews.filter(trusts).map((review) => ({ ...review, body: sanitizeText(review.body) }))
})
