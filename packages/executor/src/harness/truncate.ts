/** Tool output beyond this many characters is cut: a transcript row must stay small enough for the board. */
export const TOOL_OUTPUT_LIMIT = 16 * 1024

/** Raw lines we could not parse are kept only as a short sample. */
export const RAW_LINE_LIMIT = 2 * 1024

/** Cuts `text` to `limit` characters and says how much was dropped; never splits a surrogate pair. */
export const truncate = (text: string, limit: number = TOOL_OUTPUT_LIMIT): string => {
  if (text.length <= limit) return text
  let end = limit
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return `${text.slice(0, end)}\n…[truncated ${text.length - end} chars]`
}
