import { type Document, isMap, isNode, isScalar, isSeq, type LineCounter, type Node } from "yaml"
import type { ConfigIssue } from "./ConfigIssue"

interface Position {
  readonly line: number
  readonly column: number
}

/**
 * Finds the line and column of an issue's path in the parsed document. When the path runs past what the
 * document holds (a missing key), the deepest node that exists is used: the map the key is missing from.
 */
export const locateIssue = (document: Document, lineCounter: LineCounter, issue: ConfigIssue): Position => {
  let node: Node | null = isNode(document.contents) ? document.contents : null
  let keyNode: Node | null = null
  for (const segment of issue.path) {
    const step = child(node, segment)
    if (step === undefined) {
      keyNode = null
      break
    }
    node = step.value
    keyNode = step.key
  }
  const target = issue.at === "key" && keyNode !== null ? keyNode : (node ?? keyNode)
  const offset = target?.range?.[0] ?? 0
  const { line, col } = lineCounter.linePos(offset)
  return { line, column: col }
}

const child = (
  node: Node | null,
  segment: string | number
): { readonly key: Node | null; readonly value: Node | null } | undefined => {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? pair.key.value : pair.key
      if (String(key) === String(segment)) {
        const keyNode = isNode(pair.key) ? pair.key : null
        return { key: keyNode, value: isNode(pair.value) ? pair.value : keyNode }
      }
    }
    return undefined
  }
  if (isSeq(node) && typeof segment === "number") {
    const item = node.items[segment]
    return isNode(item) ? { key: null, value: item } : undefined
  }
  return undefined
}
