/** `"name" in item.labels` (either quote), the one way of reading labels whose label is known from the source. */
const MEMBERSHIP = /(["'])((?:\\.|(?!\1)[^\\])*)\1\s+in\s+item\s*\.\s*labels\b/g

const unescape = (literal: string) => literal.replace(/\\(.)/g, "$1")

/**
 * The labels present on an Item whose labellers must be trusted for a Loop to act on it (ADR 0032). An `if:` that
 * never mentions `labels` needs none. One that reads labels only as `"name" in item.labels` needs the present labels
 * it names. Any other use (`exists`, `size`, `startsWith`, an index) could be satisfied by any label, so every label
 * present counts.
 */
export const labelsToCheck = (ifSource: string, present: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (!/labels/.test(ifSource)) return []
  const named = new Set<string>()
  const rest = ifSource.replace(MEMBERSHIP, (_match, _quote: string, literal: string) => {
    named.add(unescape(literal).toLowerCase())
    return ""
  })
  if (/labels/.test(rest)) return present
  return present.filter((label) => named.has(label.toLowerCase()))
}
