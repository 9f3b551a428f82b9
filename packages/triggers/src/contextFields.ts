import { sanitizeText } from "@usine/core/trust/sanitizeText"
import { stripInvisible } from "@usine/core/trust/stripInvisible"
import type { ContextComment, ItemFields } from "./ItemFields"

/**
 * Ends the one comment usine keeps on an Item (ADR 0065). No Loop sees a comment carrying it: usine's own status
 * line is never new content (an author who adds it to a comment only hides that comment from the agent).
 */
export const WRITE_BACK_MARKER = "<!-- usine:write-back -->"

const isWriteBack = (comment: ContextComment) => comment.body.includes(WRITE_BACK_MARKER)

/**
 * The fields a Loop's `if:` and prompt see (ADR 0033, 0055): bodies, comments, reviews and review threads reduced
 * to the text GitHub shows a reader, the title (plain text on GitHub) without its invisible characters, and the
 * comments, reviews and threads of untrusted authors and usine's own status comment left out. `commentCount` leaves
 * out the comments left out of the last 50 read, so an outsider's comment changes nothing here. The Event's content
 * hash is taken over these fields, so what the Loop cannot see never makes new content.
 */
export const contextFields = (
  fields: ItemFields,
  trusts: (comment: ContextComment) => boolean,
  visible: (markdown: string) => string = sanitizeText
): ItemFields => {
  const comments = fields.comments.filter((comment) => trusts(comment) && !isWriteBack(comment))
  return {
    ...fields,
    title: stripInvisible(fields.title),
    body: visible(fields.body),
    comments: comments.map((comment) => ({ ...comment, body: visible(comment.body) })),
    commentCount: fields.commentCount - (fields.comments.length - comments.length),
    reviews: fields.reviews.filter(trusts).map((review) => ({ ...review, body: visible(review.body) })),
    reviewThreads: fields.reviewThreads.filter(trusts).map((thread) => ({ ...thread, body: visible(thread.body) }))
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
