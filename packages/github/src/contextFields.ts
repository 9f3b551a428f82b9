import { sanitizeText } from "@usine/core/trust/sanitizeText"
import { stripInvisible } from "@usine/core/trust/stripInvisible"
import type { ContextComment, ItemFields } from "./ItemFields"

/**
 * The fields a Loop's `if:` and prompt see (ADR 0033, 0055): bodies, comments and reviews reduced to the text GitHub
 * shows a reader, the title (plain text on GitHub) without its invisible characters, and the comments and reviews
 * of untrusted authors left out. `commentCount` leaves out the untrusted comments read (the last 50), so an
 * outsider's comment changes nothing here. The Event's content hash is taken over these fields, so what the Loop
 * cannot see never makes new content.
 */
export const contextFields = (
  fields: ItemFields,
  trusts: (comment: ContextComment) => boolean
): ItemFields => {
  const comments = fields.comments.filter(trusts)
  return {
    ...fields,
    title: stripInvisible(fields.title),
    body: sanitizeText(fields.body),
    comments: comments.map((comment) => ({ ...comment, body: sanitizeText(comment.body) })),
    commentCount: fields.commentCount - (fields.comments.length - comments.length),
    reviews: fields.reviews.filter(trusts).map((review) => ({ ...review, body: sanitizeText(review.body) }))
  }
}
