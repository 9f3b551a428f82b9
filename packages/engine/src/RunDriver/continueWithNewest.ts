import { Cause, Effect, Option } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import { type ClaimResult, RunClaims } from "@usine/store/RunClaims"
import { TriggerCondition } from "../TriggerCondition"

/** How a claim's result reaches the Run fibers: stop a superseded Run's fiber, start an opened Run's. */
export interface ClaimFollowUp {
  readonly afterClaim: (claim: ClaimResult) => Effect.Effect<void>
}

/** A check that hangs this long counts as true, as a failed one does: a queued Event is never lost to GitHub. */
const TRIGGER_CHECK_TIMEOUT = "5 seconds"

/**
 * After a Run of a Loop and Item closes: re-check the trigger of the newest queued Event of the pair and open its
 * Run, or, when the condition no longer holds, mark every queued Event of the pair revoked.
 */
export const continueWithNewest = Effect.fn("RunDriver.continueWithNewest")(function*(
  loop: string,
  itemKey: ItemKey,
  fibers: ClaimFollowUp
) {
  const claims = yield* RunClaims
  const trigger = yield* TriggerCondition
  const newest = yield* claims.newestQueued(loop, itemKey)
  if (Option.isNone(newest)) return
  const event = newest.value
  const holds = yield* trigger.holds(event).pipe(
    Effect.timeoutOption(TRIGGER_CHECK_TIMEOUT),
    Effect.map(Option.getOrElse(() => true)),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.logWarning("trigger check failed; counting it as true", cause).pipe(Effect.as(true))
    )
  )
  if (!holds) {
    const revoked = yield* claims.revokeQueued(loop, itemKey, "trigger condition no longer holds")
    yield* Effect.logInfo("queued events revoked").pipe(Effect.annotateLogs({ loop, item: itemKey, revoked }))
    return
  }
  const claim = yield* claims.claimQueued(event.eventId)
  yield* fibers.afterClaim(claim)
})
