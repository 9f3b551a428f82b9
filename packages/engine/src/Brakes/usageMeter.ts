import { Deferred, Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { ChildSessionBudgetFailure } from "@usine/core/attempt/failure"
import type { Run } from "@usine/core/run/Run"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { BrakeStore } from "@usine/store/BrakeStore"
import { RunLookup } from "@usine/store/RunLookup"
import type { LoopPolicy } from "../LoopPolicies"
import { crossedRunCap, runBaseline } from "./runCap"
import { clampUsage } from "@usine/core/usage/clampUsage"
import { addUsage, tokensOf, zeroUsage } from "@usine/core/usage/usageFigures"

/**
 * Accounts an Attempt's usage as it arrives and watches its Run's caps: `crossed` completes with the failure once the
 * Run's total (earlier Attempts plus this one's) goes past `run_tokens` or `run_cost_usd`.
 *
 * Where the figures come from (ADR 0086): an Attempt with a model proxy is judged on what the proxy counted (`metered`,
 * each answered request's usage added up, outside the sandbox); its stream's usage rows are then kept for display and
 * for the disagreement note only. An Attempt without one (a CLI on its own login) is judged on its stream's session
 * total, clamped non-negative and monotonic, so a forged line can only raise it.
 */
export const makeUsageMeter = Effect.fn("Brakes.usageMeter")(function*(run: Run, attempt: Attempt, policy: LoopPolicy) {
  const brakes = yield* BrakeStore
  const lookup = yield* RunLookup
  const crossed = yield* Deferred.make<ChildSessionBudgetFailure>()
  const capped = policy.budget?.runTokens !== undefined || policy.budget?.runCostUsd !== undefined
  const usages = yield* brakes.runUsage(run.id)
  const baseline = capped ? runBaseline(yield* lookup.attempts(run.id), usages, attempt.number) : zeroUsage
  const owner = { attemptId: attempt.id, runId: run.id, loop: run.loop, repository: run.repository, agent: run.agent }
  const recorded = usages.find((u) => u.number === attempt.number)?.usage

  const check = (usage: Usage) =>
    Option.match(capped ? crossedRunCap(addUsage(baseline, usage), policy.budget) : Option.none(), {
      onNone: () => Effect.void,
      onSome: (failure) => Deferred.succeed(crossed, failure).pipe(Effect.asVoid)
    })
  const account = (usage: Usage) => brakes.recordUsage(owner, usage).pipe(Effect.zipRight(check(usage)))

  // A reattach after a restart that came between the crossing and the stop.
  if (recorded !== undefined) yield* check(recorded)

  let stream: Usage | undefined
  // Undefined until the Attempt's proxy starts; on a reattach it goes on from the total recorded before the restart.
  let metered: Usage | undefined

  return {
    /** Completes when the Run crossed a cap. */
    crossed: Deferred.await(crossed),
    /**
     * Takes each usage row of a batch of transcript rows in order (session totals, clamped: one a forged line raised
     * stays raised, even when an honest row follows it in the batch); counts the result without a proxy.
     */
    record: (entries: ReadonlyArray<TranscriptEntry>): Effect.Effect<void> =>
      Effect.suspend(() => {
        const before = stream
        for (const entry of entries) if (entry.usage !== undefined) stream = clampUsage(stream, entry.usage)
        if (stream === undefined || stream === before) return Effect.void
        return metered === undefined ? account(stream) : Effect.void
      }),
    /** Adds one answered request's usage as the model proxy counted it; the first call (zero) says the proxy started. */
    metered: (usage: Usage): Effect.Effect<void> =>
      Effect.suspend(() => {
        metered = addUsage(metered ?? recorded ?? zeroUsage, clampUsage(undefined, usage))
        return account(metered)
      }),
    /** Notes on the Run when the stream's figure and the proxy's count differ at the Attempt's end. */
    settle: Effect.suspend(() =>
      metered === undefined || stream === undefined || tokensOf(stream) === tokensOf(metered)
        ? Effect.void
        : brakes.noteUsageDisagreed(run.id, { attempt: attempt.number, streamTokens: tokensOf(stream), meteredTokens: tokensOf(metered) })
    )
  }
})
