import { Option } from "effect"
import type { EventId } from "../ids/EventId"
import type { RunId } from "../ids/RunId"
import { type Canceled, isUnstarted, type RunState, supersede } from "./state"

/** The open Run of the same Loop and Item, as the claim sees it. */
interface BlockingRun {
  readonly id: RunId
  readonly state: RunState
}

type ClaimDecision =
  | { readonly _tag: "OpenRun" }
  | { readonly _tag: "QueueEvent" }
  | { readonly _tag: "SupersedeRun"; readonly runId: RunId; readonly state: Canceled }

/**
 * Places a previously unclaimed Event behind its Item's running work, or replaces unstarted work.
 * The ledger resolves permanent deduplication and ignored Events before this decision; running Attempts
 * always finish.
 */
export const claimRun = (blocking: Option.Option<BlockingRun>, eventId: EventId): ClaimDecision => {
  if (Option.isNone(blocking)) return { _tag: "OpenRun" }
  const run = blocking.value
  // Work at the pull-request gate has started too: the reviewer decides it before newer content runs.
  if (run.state._tag === "Running" || run.state._tag === "Reviewing") return { _tag: "QueueEvent" }
  if (isUnstarted(run.state)) return { _tag: "SupersedeRun", runId: run.id, state: supersede(run.state, eventId) }
  return { _tag: "OpenRun" }
}
