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
  trusts: (comment: ContextComment) => boolean,
  visible: (markdown: string) => string = sanitizeText
): ItemFields => {
  const comments = fields.comments.filter(trusts)
  return {
    ...fields,
    title: stripInvisible(fields.title),
    body: visible(fields.body),
    comments: comments.map((comment) => ({ ...comment, body: visible(comment.body) })),
    commentCount: fields.commentCount - (fields.comments.length - comments.length),
    reviews: fields.reviews.filter(trusts).map((review) => ({ ...review, body: visible(review.body) }))
  }
}

/** `sanitizeText` that parses each text once: every Loop of an Item reads the same bodies. */
export const memoizedVisible = (): ((markdown: string) => string) => {
  const seen = new Map<string, string>()
  return (markdown) => {
    const known = seen.get(markdown)
    if (known !== undefined) return known
    const text = sanitizeText(markdown)
    seen.set(markdown, text)
    return text
  }
}
