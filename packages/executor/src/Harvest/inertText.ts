/** Control and format characters (bidi overrides, zero-width ones) that could make a text read otherwise than it shows. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu

/**
 * The agent's commit subjects as the pull request quotes them (issue 31): a fenced code block, in which GitHub finds
 * no closing keyword, @-mention, issue reference or autolink. The fence is longer than any run of backticks in the
 * text, so no line of it can close the block; every line also begins with a commit's short sha.
 */
export const fencedSubjects = (lines: ReadonlyArray<string>): string => {
  const text = lines.map((line) => line.replace(INVISIBLE, " ")).join("\n")
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length))
  const fence = "`".repeat(Math.max(3, longest + 1))
  return `${fence}text\n${text}\n${fence}`
}

/**
 * A pull request title made of the agent's text, with nothing GitHub acts on: no invisible characters, no `#N` or
 * `GH-N` reference, no @-mention (their `#`/`@` go), on one line of at most 200 characters.
 */
export const inertTitle = (title: string): string =>
  title
    .replace(INVISIBLE, " ")
    .replace(/[#@＃＠]/g, "")
    .replace(/\bgh-(?=\d)/gi, "GH ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200)
