import type { DefaultTreeAdapterTypes } from "parse5"

/**
 * Elements whose content a reader never sees: not rendered at all (`script`, `style`, `template`, `head`), shown
 * only when something else fails (`noscript`, `object` and media fallbacks, `noembed`), or metadata (`title`, ruby's
 * `rp`). Also those HTML reads differently from GitHub, which escapes them (its tag filter) and renders what follows
 * as Markdown: `textarea`, `xmp` and `plaintext` take the rest as raw text, where a comment would show, and SVG and
 * MathML read CDATA as text. Hiding these shows less than GitHub, never more.
 */
const HIDDEN_ELEMENTS: ReadonlySet<string> = new Set([
  "script",
  "style",
  "template",
  "head",
  "title",
  "meta",
  "link",
  "noscript",
  "noembed",
  "noframes",
  "iframe",
  "object",
  "embed",
  "audio",
  "video",
  "canvas",
  "datalist",
  "rp",
  "textarea",
  "xmp",
  "plaintext",
  "svg",
  "math"
])

/** Inline styles that hide an element; GitHub drops `style` altogether, so honouring them only ever shows less. */
const HIDING_STYLE =
  /display:none|visibility:(?:hidden|collapse)|content-visibility:hidden|font-size:0(?:\.0*)?[a-z%]*(?![.\d])|opacity:0(?:\.0*)?%?(?![.\d])|color:transparent/

const has = (element: DefaultTreeAdapterTypes.Element, name: string) => element.attrs.some((a) => a.name === name)

/**
 * Whether an element and all it holds are out of a reader's sight: hidden by nature, by the `hidden` attribute, by
 * `aria-hidden` (anything but `false`), by a hiding inline style, or a `dialog` that is not open. Attribute values
 * are only ever read here, to decide; none reaches the text.
 */
export const isHidden = (element: DefaultTreeAdapterTypes.Element): boolean => {
  if (HIDDEN_ELEMENTS.has(element.tagName)) return true
  if (element.tagName === "dialog" && !has(element, "open")) return true
  for (const { name, value } of element.attrs) {
    if (name === "hidden") return true
    if (name === "aria-hidden" && value.trim().toLowerCase() !== "false") return true
    if (name === "style" && HIDING_STYLE.test(value.toLowerCase().replace(/\s+/g, ""))) return true
  }
  return false
}
