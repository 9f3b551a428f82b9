import { Context, type Effect } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { RunId } from "@usine/core/ids/RunId"
import type { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"
import type { Transition } from "@usine/core/run/Transition"

/** Runs as the ledger holds them now, with their Attempts and transition rows; no write. */
export class RunLookup extends Context.Tag("usine/RunLookup")<
  RunLookup,
  {
    /** The Run, or `RunNotFound`. */
    readonly getRun: (runId: RunId) => Effect.Effect<Run, RunNotFound>
    /** Every Run in an open state, oldest Event first. */
    readonly openRuns: Effect.Effect<ReadonlyArray<Run>>
    /** The Run's Attempts, by number. */
    readonly attempts: (runId: RunId) => Effect.Effect<ReadonlyArray<Attempt>>
    /** The Run's transition rows, oldest first. */
    readonly transitions: (runId: RunId) => Effect.Effect<ReadonlyArray<Transition>>
  }
>() {}
