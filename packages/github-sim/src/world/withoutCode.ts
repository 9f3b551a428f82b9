/** A fence's opening line: up to three spaces, then three or more backticks or tildes (CommonMark). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/

/**
 * Markdown without its code, as GitHub reads it for references, closing keywords and mentions: fenced blocks (to
 * their closing fence, or the end), indented blocks, and code spans (a backtick run to the next run of the same
 * length) become blank. Nothing GitHub shows as code closes an issue or mentions anyone.
 */
export const withoutCode = (markdown: string): string => {
  const kept: Array<string> = []
  let fence: string | undefined
  let previousBlank = true
  for (const line of markdown.split("\n")) {
    if (fence !== undefined) {
      const close = FENCE.exec(line)?.[1]
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length && line.trim() === close) fence = undefined
      kept.push("")
      continue
    }
    const open = FENCE.exec(line)?.[1]
    if (open !== undefined && !(open[0] === "`" && line.slice(line.indexOf(open) + open.length).includes("`"))) {
      fence = open
      kept.push("")
      continue
    }
    if (previousBlank && /^(?: {4}|\t)/.test(line) && line.trim() !== "") {
      kept.push("")
      continue
    }
    previousBlank = line.trim() === ""
    kept.push(line)
  }
  return kept.join("\n").replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, " ")
}
