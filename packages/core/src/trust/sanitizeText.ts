import MarkdownIt from "markdown-it"
import { parseFragment } from "parse5"
import { renderVisible } from "./sanitizeText/renderVisible"
import { stripInvisible } from "./stripInvisible"

/**
 * CommonMark with GitHub's tables and strikethrough, raw HTML passed through as GitHub passes it to its sanitizer.
 * markdown-it rather than micromark: it stays near linear on hostile bodies and caps nesting (ADR 0055).
 */
const markdown = new MarkdownIt("default", { html: true })

/**
 * The text of a body, comment or review as it may reach a Loop's `if:` and prompt (ADR 0033, 0055): the Markdown
 * is rendered to HTML and parsed as a browser parses it, and only what a reader of the page sees is written back,
 * as plain Markdown-ish text. The model reads no more than the person who triggered the Loop could see.
 */
export const sanitizeText = (text: string): string =>
  stripInvisible(renderVisible(parseFragment(markdown.render(text))))
