import { Context, type Effect, type Option } from "effect"
import type { PushRecord } from "@usine/core/attempt/PushRecord"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"

/** The pushes Attempts are about to send, recorded first so the daemon recognises its own push (ADR 0082). */
export class PushRecords extends Context.Tag("usine/PushRecords")<
  PushRecords,
  {
    /**
     * Records the commit and branch the open Attempt is about to push, before the push is sent. The first record
     * stays: returns the one that holds.
     */
    readonly recordPush: (attemptId: AttemptId, push: PushRecord) => Effect.Effect<PushRecord, AttemptNotOpen>
    /** The push recorded for the Attempt, if any. */
    readonly recordedPush: (attemptId: AttemptId) => Effect.Effect<Option.Option<PushRecord>>
  }
>() {}
