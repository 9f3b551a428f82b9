/**
 * Raw HTML that GitHub does not show: comments (an unclosed one hides the rest), CDATA sections, declarations and
 * processing instructions, elements hidden by attribute or by nature, and attributes that hold text a reader never
 * sees. Code blocks are not exempt: a hidden construct inside one costs the model a few characters of a snippet,
 * while parsing Markdown exactly as GitHub does is not something a trigger should depend on.
 */

/** Where the comment opened at `start` ends, per HTML: `<!-->` and `<!--->` end at once, else `-->` or `--!>`. */
const commentEnd = (text: string, start: number): number => {
  const body = start + 4
  if (text.startsWith(">", body)) return body + 1
  if (text.startsWith("->", body)) return body + 2
  const closes = [text.indexOf("-->", body), text.indexOf("--!>", body)].filter((i) => i >= 0)
  if (closes.length === 0) return text.length
  const close = Math.min(...closes)
  return close + (text.startsWith("--!>", close) ? 4 : 3)
}

/** Removes HTML comments; an unclosed comment hides everything after it. */
export const stripComments = (text: string): string => {
  let out = ""
  let at = 0
  for (let open = text.indexOf("<!--"); open >= 0; open = text.indexOf("<!--", at)) {
    out += text.slice(at, open)
    at = commentEnd(text, open)
  }
  return out + text.slice(at)
}

const CDATA = /<!\[CDATA\[[\s\S]*?(?:\]\]>|$(?![\s\S]))/g
const DECLARATION = /<![A-Za-z][^>]*(?:>|$(?![\s\S]))/g
const PROCESSING = /<\?[^>]*(?:>|$(?![\s\S]))/g

/** Removes CDATA sections, `<!DOCTYPE ...>`-like declarations and `<?...>` processing instructions. */
export const stripDeclarations = (text: string): string =>
  text.replace(CDATA, "").replace(DECLARATION, "").replace(PROCESSING, "")

const ATTRIBUTES = String.raw`(?:\s+[^\s"'<>\/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>` + "`" + String.raw`]+))?)*`
const START_TAG = new RegExp(String.raw`<([A-Za-z][A-Za-z0-9-]*)(${ATTRIBUTES})\s*\/?>`, "g")
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/g

/** Elements whose content never shows. */
const HIDDEN_ELEMENTS = new Set(["script", "style", "template", "noscript", "iframe", "object", "title", "head"])
const VOID_ELEMENTS = new Set(["area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])

const unquote = (value: string | undefined) => (value ?? "").replace(/^["']|["']$/g, "")

const hidesContent = (name: string, attributes: string): boolean => {
  if (HIDDEN_ELEMENTS.has(name)) return true
  for (const [, key = "", value] of attributes.matchAll(ATTRIBUTE)) {
    const attribute = key.toLowerCase()
    const text = unquote(value).toLowerCase().replace(/\s+/g, "")
    if (attribute === "hidden") return true
    if (attribute === "aria-hidden" && text !== "false") return true
    if (attribute === "type" && name === "input" && text === "hidden") return true
    if (attribute === "style" && /display:none|visibility:hidden|font-size:0(?![.\d])|opacity:0(?![.\d])/.test(text)) return true
  }
  return false
}

/**
 * Where the element opened by a tag ending at `from` closes, counting nested elements of the same name. HTML has no
 * self-closing `<div/>`: it opens an element like `<div>`, so it counts as one.
 */
const elementEnd = (text: string, name: string, from: number): number => {
  const tags = new RegExp(String.raw`<(\/?)${name}(?=[\s/>])[^>]*>`, "gi")
  tags.lastIndex = from
  let depth = 1
  for (let tag = tags.exec(text); tag !== null; tag = tags.exec(text)) {
    depth += tag[1] === "/" ? -1 : 1
    if (depth === 0) return tag.index + tag[0].length
  }
  return text.length
}

/** Removes hidden elements with their content; an unclosed one hides the rest of the text. */
export const stripHiddenElements = (text: string): string => {
  let out = ""
  let at = 0
  START_TAG.lastIndex = 0
  for (let tag = START_TAG.exec(text); tag !== null; tag = START_TAG.exec(text)) {
    const name = (tag[1] ?? "").toLowerCase()
    if (!hidesContent(name, tag[2] ?? "")) continue
    const tagEnd = tag.index + tag[0].length
    const end = VOID_ELEMENTS.has(name) ? tagEnd : elementEnd(text, name, tagEnd)
    out += text.slice(at, tag.index)
    at = end
    START_TAG.lastIndex = end
  }
  return out + text.slice(at)
}

/** Attributes whose text a reader never sees on the page (an image's alt text, a tooltip, data, form values). */
const isInvisibleAttribute = (name: string): boolean =>
  /^(?:alt|title|aria-label|aria-description|aria-roledescription|aria-placeholder|aria-valuetext|value|placeholder|label|content|summary|style|data-.*)$/i.test(
    name
  )

/** Rewrites every start tag without its invisible attributes. */
export const stripInvisibleAttributes = (text: string): string =>
  text.replace(START_TAG, (tag, name: string, attributes: string) => {
    const all = [...attributes.matchAll(ATTRIBUTE)]
    const kept = all.filter(([, key = ""]) => !isInvisibleAttribute(key)).map(([whole]) => whole)
    if (kept.length === all.length) return tag
    return `<${name}${kept.map((attribute) => ` ${attribute}`).join("")}${tag.endsWith("/>") ? " />" : ">"}`
  })

/** Every rule above, comments first (what a comment hides is not markup). */
export const stripHiddenMarkup = (text: string): string =>
  stripInvisibleAttributes(stripHiddenElements(stripDeclarations(stripComments(text))))
