/**
 * Markdown whose text GitHub does not print: an image's alt text (shown only when the image fails), a link's title
 * (a tooltip), and link reference definitions (`[//]: # (note)` is the usual "Markdown comment").
 */

// One level of nested brackets, as alt text may hold; no deeper, so a run of `![` is matched in linear time.
const IMAGE_ALT = /!\[(?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*\](?=[([])/g
const TITLE = String.raw`(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))`
const LINK_TITLE = new RegExp(String.raw`\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\s+${TITLE}\s*\)`, "g")
const REFERENCE_DEFINITION = new RegExp(
  String.raw`^ {0,3}\[(?!\^)(?:[^\]\\\n]|\\.)+\]:[ \t]*(?:\n[ \t]*)?(?:<[^>\n]*>|\S+)(?:(?:[ \t]+|[ \t]*\n[ \t]*)${TITLE})?[ \t]*$\n?`,
  "gm"
)

/** `![alt](src)` becomes `![](src)`; `[text](url "title")` becomes `[text](url)`; reference definitions go. */
export const stripHiddenMarkdown = (text: string): string =>
  text.replace(IMAGE_ALT, "![]").replace(LINK_TITLE, "]($1)").replace(REFERENCE_DEFINITION, "")
