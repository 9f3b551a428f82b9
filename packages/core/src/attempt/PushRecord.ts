import type { Effect, Option } from "effect"

/** What an Attempt pushes: the commit and the branch, recorded in the ledger before the push is sent (ADR 0082). */
export interface PushRecord {
  readonly branch: string
  readonly sha: string
}

/**
 * The ledger's side of one Attempt's push, lent to harvest as `onPatch` is: a harvest run again after a restart or
 * a retry reads what it recorded, and recognises that commit on GitHub as its own push.
 */
export interface PushLedger {
  /** The push recorded for the Attempt, if any. */
  readonly recorded: Effect.Effect<Option.Option<PushRecord>>
  /** Records the push about to be sent, in its own transaction; an Attempt's first record stays. */
  readonly record: (push: PushRecord) => Effect.Effect<void>
}
