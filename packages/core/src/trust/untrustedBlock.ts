import { sanitizeText } from "./sanitizeText"

const DELIMITER = /<(\/?)(untrusted-data)/gi

/**
 * Wraps text written on GitHub in a delimited block, so a prompt shows the agent which part is data to read and
 * not instructions to follow. The text is sanitized again (the filter may be given any field) and any delimiter
 * inside it is escaped, so the text cannot close its own block and speak as the prompt.
 */
export const untrustedBlock = (value: unknown, source: unknown): string => {
  const text = sanitizeText(value === undefined || value === null ? "" : String(value)).replace(DELIMITER, "&lt;$1$2")
  const label = sanitizeText(source === undefined || source === null ? "GitHub" : String(source)).replace(/["<>&\r\n]/g, "")
  return `<untrusted-data source="${label}">\n${text}\n</untrusted-data>`
}
