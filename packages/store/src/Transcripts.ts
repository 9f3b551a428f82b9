import { Context, type Effect } from "effect"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { TranscriptCap } from "@usine/core/transcript/transcriptCap"

/** Each Attempt's transcript: the rows its session wrote, kept up to the Loop's cap. */
export class Transcripts extends Context.Tag("usine/Transcripts")<
  Transcripts,
  {
    /**
     * Appends transcript rows to an Attempt, up to `cap` (the default Loop's when absent); past it one marker row,
     * last, counts what was dropped (ADR 0085). Returns the new last sequence number.
     */
    readonly appendTranscript: (
      attemptId: AttemptId,
      entries: ReadonlyArray<TranscriptEntry>,
      cap?: TranscriptCap
    ) => Effect.Effect<number>
    /** How many transcript rows of the Attempt's sequence reached the ledger, kept or dropped past the cap. */
    readonly transcriptPosition: (attemptId: AttemptId) => Effect.Effect<number>
    /** The Attempt's rows after `afterSeq` (all without it), in order. */
    readonly transcript: (
      attemptId: AttemptId,
      afterSeq?: number
    ) => Effect.Effect<ReadonlyArray<TranscriptEntry & { readonly seq: number }>>
  }
>() {}
