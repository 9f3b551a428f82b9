import { Effect } from "effect"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { RedactorService } from "@usine/core/text/Redactor"

/**
 * A position in an Attempt's transcript, which is a pure function of its journal and its turns' stream lines
 * (ADR 0023). Every process replays that sequence from its start; the rows the ledger already holds are
 * counted and dropped, the rest are redacted and delivered. `rewind` lets a retried replay pass again over
 * rows this process already delivered without repeating them.
 */
export interface TranscriptCursor {
  /** Counts these rows as the next ones of the sequence, delivering those not delivered yet. */
  readonly emit: (rows: ReadonlyArray<TranscriptEntry>) => Effect.Effect<void>
  /** Whether every row so far was already delivered (by this process or an earlier one). */
  readonly replaying: () => boolean
  /** Back to the start of the sequence. */
  readonly rewind: () => void
}

export const makeTranscriptCursor = (options: {
  /** Rows of the sequence the ledger already holds. */
  readonly delivered: number
  readonly redactor: RedactorService
  readonly deliver: (rows: ReadonlyArray<TranscriptEntry>) => Effect.Effect<void>
}): TranscriptCursor => {
  let position = 0
  let delivered = options.delivered
  return {
    emit: (rows) =>
      Effect.suspend(() => {
        const start = position
        position += rows.length
        const fresh = rows.slice(Math.max(0, delivered - start))
        if (fresh.length === 0) return Effect.void
        delivered = position
        return options.deliver(fresh.map(options.redactor.redactEntry))
      }),
    replaying: () => position < delivered,
    rewind: () => {
      position = 0
    }
  }
}
