/** A line still being written: its first bytes kept, up to the cap, and how many more were dropped. */
export interface PartialLine {
  readonly bytes: Uint8Array
  readonly cut: number
}

export const emptyLine: PartialLine = { bytes: new Uint8Array(0), cut: 0 }

/** The line as delivered: a line over the cap keeps its start and says how much of it was dropped (ADR 0085). */
export const lineText = (line: PartialLine): string => {
  const text = Buffer.from(line.bytes).toString("utf8")
  return line.cut === 0 ? text : `${text}…[line cut: ${line.cut} more bytes dropped]`
}

const newline = 0x0a

const append = (line: PartialLine, segment: Uint8Array, maxLineBytes: number): PartialLine => {
  if (segment.length === 0) return line
  const room = Math.max(0, maxLineBytes - line.bytes.length)
  if (room === 0) return { bytes: line.bytes, cut: line.cut + segment.length }
  const kept = segment.subarray(0, room)
  const bytes = new Uint8Array(line.bytes.length + kept.length)
  bytes.set(line.bytes)
  bytes.set(kept, line.bytes.length)
  return { bytes, cut: line.cut + segment.length - kept.length }
}

/**
 * Splits the stream's next bytes into complete lines, after the line `partial` already began. A line is held only
 * up to `maxLineBytes`: the rest of it is counted, never buffered, however long the agent writes without a newline.
 */
export const splitLines = (
  partial: PartialLine,
  bytes: Uint8Array,
  maxLineBytes: number
): { readonly lines: Array<string>; readonly rest: PartialLine } => {
  const lines: Array<string> = []
  let line = partial
  let start = 0
  for (let i = bytes.indexOf(newline); i >= 0; i = bytes.indexOf(newline, start)) {
    lines.push(lineText(append(line, bytes.subarray(start, i), maxLineBytes)))
    line = emptyLine
    start = i + 1
  }
  // `append` copies what it keeps: no slice pins the whole chunk read.
  return { lines, rest: append(line, bytes.subarray(start), maxLineBytes) }
}
