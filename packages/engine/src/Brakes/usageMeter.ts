import { Deferred, Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { ChildSessionBudgetFailure } from "@usine/core/attempt/failure"
import type { Run } from "@usine/core/run/Run"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { BrakeStore } from "@usine/store/BrakeStore"
import { RunStore } from "@usine/store/RunStore"
import type { LoopPolicy } from "../LoopPolicies"
import { crossedRunCap, runBaseline } from "./runCap"
import { addUsage, zeroUsage } from "@usine/core/usage/usageFigures"

/**
 * Accounts an Attempt's usage rows as they arrive and watches its Run's caps: `crossed` completes with the failure
 * once the Run's total (earlier Attempts plus this one's latest session total) goes past `run_tokens` or `run_cost_usd`.
 */
export const makeUsageMeter = Effect.fn("Brakes.usageMeter")(function*(run: Run, attempt: Attempt, policy: LoopPolicy) {
  const brakes = yield* BrakeStore
  const store = yield* RunStore
  const crossed = yield* Deferred.make<ChildSessionBudgetFailure>()
  const capped = policy.budget?.runTokens !== undefined || policy.budget?.runCostUsd !== undefined
  const usages = capped ? yield* brakes.runUsage(run.id) : []
  const baseline = capped ? runBaseline(yield* store.attempts(run.id), usages, attempt.number) : zeroUsage
  const owner = { attemptId: attempt.id, runId: run.id, loop: run.loop, repository: run.repository, agent: run.agent }

  const check = (usage: Usage) =>
    Option.match(capped ? crossedRunCap(addUsage(baseline, usage), policy.budget) : Option.none(), {
      onNone: () => Effect.void,
      onSome: (failure) => Deferred.succeed(crossed, failure).pipe(Effect.asVoid)
    })

  // A reattach after a restart that came between the crossing and the stop.
  const recorded = usages.find((u) => u.number === attempt.number)
  if (recorded !== undefined) yield* check(recorded.usage)

  return {
    /** Completes when the Run crossed a cap. */
    crossed: Deferred.await(crossed),
    /** Records the newest usage row of a batch of transcript rows; a session total replaces the earlier one. */
    record: (entries: ReadonlyArray<TranscriptEntry>): Effect.Effect<void> => {
      const usage = entries.findLast((entry) => entry.usage !== undefined)?.usage
      if (usage === undefined) return Effect.void
      return brakes.recordUsage(owner, usage).pipe(Effect.zipRight(check(usage)))
    }
  }
})
