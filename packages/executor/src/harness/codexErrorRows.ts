import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { truncate } from "./truncate"

/** A Codex stream's error rows: the last error kept for the Attempt's failure, a retry message repeated only once. */
interface CodexErrorRows {
  /** An error row; its text becomes the stream's last error. */
  readonly row: (message: string, at: number) => TranscriptEntry
  /** The row of an `error` event, or none when it repeats the previous one (Codex repeats its retry message). */
  readonly event: (message: string, at: number) => ReadonlyArray<TranscriptEntry>
  readonly last: () => string | undefined
}

export const codexErrorRows = (): CodexErrorRows => {
  let lastError: string | undefined
  let lastEvent: string | undefined
  const row = (message: string, at: number): TranscriptEntry => {
    lastError = message
    return { kind: "error", text: truncate(message), at }
  }
  return {
    row,
    event: (message, at) => {
      if (message === lastEvent) return []
      lastEvent = message
      return [row(message, at)]
    },
    last: () => lastError
  }
}
