import { Context, Data, type Effect } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { ClaimResult } from "@usine/store/RunClaims"

/** What the ledger made of a submitted Event: a Run claimed, the Event queued or ignored, or the budget spent. */
export type ClaimOutcome = ClaimResult

/** The engine refused a trigger's call (a Loop it does not know, a Loop paused since the poll read it). */
export class TriggerRefused extends Data.TaggedError("TriggerRefused")<{
  readonly loop: string
  readonly detail: string
}> {
  override get message() {
    return `loop ${this.loop}: the engine refused the trigger: ${this.detail}`
  }
}

/** Where the triggers hand their decisions; the app implements it with the RunEngine. */
export class TriggerSink extends Context.Tag("usine/TriggerSink")<
  TriggerSink,
  {
    /** Records the Event of a Loop whose `if:` holds and claims its Run. */
    readonly submit: (submission: Submission) => Effect.Effect<ClaimOutcome, TriggerRefused>
    /** The Item stopped matching the Loop's `if:`: its unstarted Runs are canceled, its queued Events ignored. */
    readonly revoke: (loop: string, itemKey: ItemKey) => Effect.Effect<void, TriggerRefused>
  }
>() {}
