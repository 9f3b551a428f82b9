import type { TranscriptEntry, Usage } from "./TranscriptRow"

/** The most of an Attempt's transcript the ledger keeps (ADR 0085): rows (the marker included) and text bytes. */
export interface TranscriptCap {
  readonly rows: number
  readonly bytes: number
}

/** The tool name only the cap's marker row carries; an agent's row naming it is renamed on the way in. */
export const TRUNCATED_TOOL = "usine:transcript-cap"

/** What was dropped once the cap was reached: counted, the newest usage kept (the Board's figure reads it). */
export interface TranscriptDropped {
  readonly rows: number
  readonly bytes: number
  readonly usage: Usage | undefined
  /** When the first row was dropped. */
  readonly at: number
}

/** An Attempt's transcript as stored: rows and text bytes kept (the marker excluded), and what was dropped. */
export interface TranscriptFill {
  readonly rows: number
  readonly bytes: number
  readonly dropped: TranscriptDropped | undefined
}

export const emptyFill: TranscriptFill = { rows: 0, bytes: 0, dropped: undefined }

/** The UTF-8 length of a string, without encoding it. */
export const utf8Length = (text: string): number => {
  let length = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) length += 1
    else if (code < 0x800) length += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      length += 4
      i++
    } else length += 3
  }
  return length
}

/**
 * Which of `entries` the ledger keeps: rows in order while they fit, one row kept free for the marker; from the first
 * that does not fit on, every row is only counted, so the sequence is a prefix and one marker, however much follows.
 */
export const fitTranscript = (
  fill: TranscriptFill,
  entries: ReadonlyArray<TranscriptEntry>,
  cap: TranscriptCap
): { readonly kept: ReadonlyArray<TranscriptEntry>; readonly fill: TranscriptFill } => {
  let { bytes, dropped, rows } = fill
  const kept: Array<TranscriptEntry> = []
  for (const entry of entries) {
    const size = utf8Length(entry.text)
    if (dropped === undefined && rows + 1 < cap.rows && bytes + size <= cap.bytes) {
      kept.push(entry)
      rows += 1
      bytes += size
    } else {
      dropped = {
        rows: (dropped?.rows ?? 0) + 1,
        bytes: (dropped?.bytes ?? 0) + size,
        usage: entry.usage ?? dropped?.usage,
        at: dropped?.at ?? entry.at
      }
    }
  }
  return { kept, fill: { rows, bytes, dropped } }
}

/** The marker row that stands for every dropped row; its counts are rewritten as more is dropped. */
export const truncationMarker = (dropped: TranscriptDropped, cap: TranscriptCap): TranscriptEntry => ({
  kind: "system",
  tool: TRUNCATED_TOOL,
  text: `transcript truncated at its cap (${cap.rows} rows, ${cap.bytes} bytes): ${dropped.rows} later rows (${dropped.bytes} bytes) dropped; the agent kept running`,
  ...(dropped.usage === undefined ? {} : { usage: dropped.usage }),
  at: dropped.at
})

/** The counts a marker row states, read back after a restart. */
export const droppedOfMarker = (marker: Pick<TranscriptEntry, "text" | "usage" | "at">): TranscriptDropped | undefined => {
  const match = /: (\d+) later rows \((\d+) bytes\) dropped;/.exec(marker.text)
  if (match === null) return undefined
  return { rows: Number(match[1]), bytes: Number(match[2]), usage: marker.usage, at: marker.at }
}
