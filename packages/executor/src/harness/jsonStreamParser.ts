import type { AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { StreamParser } from "./Harness"
import { jsonLine, type StreamEvent } from "./jsonLine"

/**
 * The `StreamParser` of a CLI that prints one JSON event a line: unreadable lines become error rows (`jsonLine`),
 * every event goes to `event`, and the harness's own state answers `failure` and `lastError`.
 */
export const jsonStreamParser = (
  event: (event: StreamEvent, at: number) => ReadonlyArray<TranscriptEntry>,
  state: { readonly failure: () => AttemptFailure | undefined; readonly lastError: () => string | undefined }
): StreamParser => ({
  line: (raw, at) => {
    const parsed = jsonLine(raw, at)
    return parsed._tag === "Rows" ? parsed.rows : event(parsed.event, at)
  },
  failure: state.failure,
  lastError: state.lastError
})
