import type { DefaultTreeAdapterTypes } from "parse5"
import { stripInvisible } from "../stripInvisible"
import { isHidden } from "./isHidden"

type Node = DefaultTreeAdapterTypes.ChildNode
type Element = DefaultTreeAdapterTypes.Element
type Parent = DefaultTreeAdapterTypes.ParentNode

/** Elements that start a block of their own; every other element is read as inline text. */
const BLOCKS: ReadonlySet<string> = new Set([
  "address", "article", "aside", "blockquote", "center", "dd", "details", "dialog", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
  "ol", "p", "pre", "section", "summary", "table", "ul"
])

/** Raw HTML nests without limit; past this depth a subtree is read as flat text, without recursion. */
const MAX_DEPTH = 48

const isElement = (node: Node): node is Element => "tagName" in node
const isText = (node: Node): node is DefaultTreeAdapterTypes.TextNode => node.nodeName === "#text"
const isBlock = (node: Node): node is Element => isElement(node) && BLOCKS.has(node.tagName)
const childrenOf = (node: Parent): ReadonlyArray<Node> => node.childNodes

/** The visible text under `root` as one string, depth-first on an explicit stack; blocks end lines. */
const flatText = (root: Parent): string => {
  let out = ""
  const stack: Array<Node | "\n"> = [...childrenOf(root)].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node === "\n") out += "\n"
    else if (isText(node)) out += stripInvisible(node.value)
    else if (isElement(node) && !isHidden(node)) {
      if (node.tagName === "br") out += "\n"
      if (isBlock(node)) stack.push("\n")
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!)
    }
  }
  return out
}

/** Lines trimmed, empty ones dropped: what a browser shows of a run of inline text. */
const tidy = (text: string): string =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join("\n")

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()
/** The longest run of backticks; a loop, since a spread of every run would overflow the stack on a long text. */
const longestTicks = (text: string): number => {
  let longest = 0
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  return longest
}

const codeSpan = (text: string): string => {
  const ticks = "`".repeat(longestTicks(text) + 1)
  return /^`|`$/.test(text) ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`
}

const fence = (text: string): string => {
  const ticks = "`".repeat(Math.max(3, longestTicks(text) + 1))
  return `${ticks}\n${text.replace(/\n$/, "")}\n${ticks}`
}

/** Every line of `text` after a prefix; the first may take its own (a list marker). */
const prefixLines = (text: string, rest: string, first = rest): string =>
  text
    .split("\n")
    .map((line, i) => (line === "" ? rest.trimEnd() : `${i === 0 ? first : rest}${line}`))
    .join("\n")

const inline = (nodes: ReadonlyArray<Node>, depth: number): string => nodes.map((node) => inlineNode(node, depth)).join("")

/** Text, and the inline elements around it; images, form fields and comments show no text. */
const inlineNode = (node: Node, depth: number): string => {
  if (isText(node)) return stripInvisible(node.value)
  if (!isElement(node) || isHidden(node)) return ""
  if (depth > MAX_DEPTH) return flatText(node)
  switch (node.tagName) {
    case "br":
      return "\n"
    case "img":
    case "input":
    case "select":
      return ""
    case "code":
      return codeSpan(oneLine(flatText(node)))
    default:
      return isBlock(node) ? `\n${block(node, depth + 1)}\n` : inline(childrenOf(node), depth + 1)
  }
}

/** The children of a block: runs of inline nodes become paragraphs, between the blocks, `separator` apart. */
const blocks = (parent: Parent, depth: number, separator = "\n\n"): string => {
  const out: Array<string> = []
  let run: Array<Node> = []
  const flush = () => {
    const text = tidy(inline(run, depth))
    if (text !== "") out.push(text)
    run = []
  }
  for (const child of childrenOf(parent)) {
    if (!isBlock(child)) {
      run.push(child)
      continue
    }
    flush()
    const text = isHidden(child) ? "" : block(child, depth + 1)
    if (text !== "") out.push(text)
  }
  flush()
  return out.join(separator)
}

const listItems = (list: Element, depth: number, marker: (index: number) => string): string => {
  const items: Array<string> = []
  let index = 0
  for (const child of childrenOf(list)) {
    if (isElement(child) && child.tagName === "li") {
      if (isHidden(child)) continue
      const mark = marker(index++)
      const text = blocks(child, depth + 1, "\n")
      if (text !== "") items.push(prefixLines(text, " ".repeat(mark.length), mark))
    } else {
      const text = isElement(child) ? (isHidden(child) ? "" : block(child, depth + 1)) : tidy(inline([child], depth))
      if (text !== "") items.push(text)
    }
  }
  return items.join("\n")
}

const rowsOf = (table: Element): ReadonlyArray<Element> =>
  childrenOf(table).flatMap((child) =>
    !isElement(child) || isHidden(child) ? [] : child.tagName === "tr" ? [child] : /^t(?:head|body|foot)$/.test(child.tagName) ? rowsOf(child) : []
  )

/** A table as Markdown rows; a header row of `th` cells gets its rule. */
const table = (element: Element, depth: number): string => {
  const lines: Array<string> = []
  rowsOf(element).forEach((row, index) => {
    const cells = childrenOf(row).filter((c): c is Element => isElement(c) && /^t[hd]$/.test(c.tagName) && !isHidden(c))
    if (cells.length === 0) return
    lines.push(`| ${cells.map((cell) => oneLine(blocks(cell, depth + 1)).replace(/\|/g, "\\|")).join(" | ")} |`)
    if (index === 0 && cells.every((cell) => cell.tagName === "th")) lines.push(`|${" --- |".repeat(cells.length)}`)
  })
  return lines.join("\n")
}

/** One block element as Markdown-ish text: headings, quotes, lists, code blocks and tables keep their shape. */
const block = (element: Element, depth: number): string => {
  if (depth > MAX_DEPTH) return tidy(flatText(element))
  const tag = element.tagName
  const heading = /^h([1-6])$/.exec(tag)
  if (heading !== null) {
    const text = oneLine(blocks(element, depth))
    return text === "" ? "" : `${"#".repeat(Number(heading[1]))} ${text}`
  }
  switch (tag) {
    case "blockquote": {
      const quoted = blocks(element, depth)
      return quoted === "" ? "" : prefixLines(quoted, "> ")
    }
    case "ul":
      return listItems(element, depth, () => "- ")
    case "ol": {
      const start = Number.parseInt(element.attrs.find((a) => a.name === "start")?.value ?? "1", 10)
      const from = Number.isSafeInteger(start) ? start : 1
      return listItems(element, depth, (index) => `${from + index}. `)
    }
    case "li":
      return blocks(element, depth, "\n")
    case "pre": {
      const code = flatText(element)
      return code.trim() === "" ? "" : fence(code)
    }
    case "hr":
      return "---"
    case "table":
      return table(element, depth)
    default:
      return blocks(element, depth)
  }
}

/**
 * The text of a rendered fragment as a reader sees it, written back as plain Markdown-ish text for a prompt (ADR
 * 0055): text, code and link text stay; comments, attribute values (so alt text, titles and link targets), hidden
 * elements and invisible characters do not.
 */
export const renderVisible = (fragment: DefaultTreeAdapterTypes.DocumentFragment): string =>
  blocks(fragment, 0).replace(/\n{3,}/g, "\n\n")
