import { stripInvisible } from "./stripInvisible"

const DELIMITER = /<(\/?)(untrusted-data)/gi

/**
 * Wraps text written on GitHub in a delimited block, so a prompt shows the agent which part is data to read and
 * not instructions to follow. Invisible characters are removed again (the filter may be given any field) and any
 * delimiter inside is escaped, so the text cannot close its own block and speak as the prompt. The text is not
 * parsed as Markdown again: the context already holds what a reader sees, and a second pass would read a visible
 * `<!--` or `<T>` as markup.
 */
export const untrustedBlock = (value: unknown, source: unknown): string => {
  const text = stripInvisible(value === undefined || value === null ? "" : String(value)).replace(DELIMITER, "&lt;$1$2")
  const label = stripInvisible(source === undefined || source === null ? "GitHub" : String(source)).replace(/["<>&\r\n]/g, "")
  return `<untrusted-data source="${label}">\n${text}\n</untrusted-data>`
}
