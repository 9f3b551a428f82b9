import { stripHiddenMarkdown } from "./stripHiddenMarkdown"
import { stripHiddenMarkup } from "./stripHiddenMarkup"
import { stripInvisible } from "./stripInvisible"

/** Each pass only removes text, so a few passes reach the fixed point; one removal can reveal a new construct. */
const MAX_PASSES = 8

const pass = (text: string): string => stripHiddenMarkdown(stripHiddenMarkup(stripInvisible(stripHiddenMarkup(text))))

/**
 * The text of a title, body, comment or review as it may reach a Loop's `if:` and prompt: what GitHub does not show
 * a reader is removed (ADR 0033), so the model reads no more than the person who triggered it could see. Markup goes
 * before invisible characters as well as after: `-\u200B->` does not close a comment on GitHub, and must not here.
 */
export const sanitizeText = (text: string): string => {
  let current = text
  for (let i = 0; i < MAX_PASSES; i++) {
    const next = pass(current)
    if (next === current) return next
    current = next
  }
  return current
}
