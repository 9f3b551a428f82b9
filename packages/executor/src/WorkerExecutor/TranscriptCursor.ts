import { Effect } from "effect"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { clampUsage } from "@usine/core/usage/clampUsage"
import { harnessUsageLine } from "../harness/harnessUsageLine"
import type { RedactorService } from "@usine/core/text/Redactor"

/**
 * A position in an Attempt's transcript, which is a pure function of its journal and its turns' stream lines
 * (ADR 0023). Every process replays that sequence from its start; the rows the ledger already holds are
 * counted and dropped, the rest are redacted and delivered. Usage rows are clamped on the way (`clampUsage`): what
 * the CLI's stream says it spent never goes down and is never negative, whoever wrote the line. `rewind` lets a retried replay pass again over
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
  // The Attempt's stream usage so far: each usage row is clamped to it (ADR 0086), the same on every replay.
  let usage: Usage | undefined
  const clamped = (row: TranscriptEntry): TranscriptEntry => {
    if (row.usage === undefined) return row
    usage = clampUsage(usage, row.usage)
    return { ...row, text: harnessUsageLine(usage), usage }
  }
  return {
    emit: (given) =>
      Effect.suspend(() => {
        const rows = given.map(clamped)
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
      usage = undefined
    }
  }
}
