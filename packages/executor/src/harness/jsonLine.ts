import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { RAW_LINE_LIMIT, truncate } from "./truncate"

/** A JSON object with a `type`, as every line of the supported CLIs' streams is. */
export type StreamEvent = Readonly<Record<string, unknown>> & { readonly type?: unknown }

/**
 * Reads one stdout line as a JSON object. Blank lines are skipped; anything else that is not a JSON object
 * becomes an `error` row with the raw text, so a garbled stream never stops the Attempt's transcript.
 */
export const jsonLine = (
  line: string,
  at: number
): { readonly _tag: "Event"; readonly event: StreamEvent } | { readonly _tag: "Rows"; readonly rows: ReadonlyArray<TranscriptEntry> } => {
  const trimmed = line.trim()
  if (trimmed === "") return { _tag: "Rows", rows: [] }
  try {
    const value: unknown = JSON.parse(trimmed)
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return { _tag: "Event", event: value as StreamEvent }
    }
  } catch {
    // falls through to the error row below
  }
  return { _tag: "Rows", rows: [{ kind: "error", text: `unreadable stream line: ${truncate(trimmed, RAW_LINE_LIMIT)}`, at }] }
}

/** A field as a string, or `undefined` when it is missing or not a string. */
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** A field as a finite number, or 0. */
export const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)

/** A field as an object, or an empty one. */
export const obj = (value: unknown): Readonly<Record<string, unknown>> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

/** A field as an array, or an empty one. */
export const arr = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

/** A well-formed event of a type the parser does not know: kept as a `system` row so nothing is silently lost. */
export const unknownEventRow = (event: StreamEvent, at: number): TranscriptEntry => ({
  kind: "system",
  text: `unrecognized event: ${truncate(JSON.stringify(event), RAW_LINE_LIMIT)}`,
  at
})
