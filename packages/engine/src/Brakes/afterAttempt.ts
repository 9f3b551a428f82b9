import { Clock, Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Run } from "@usine/core/run/Run"
import { BrakeStore } from "@usine/store/BrakeStore"
import type { LoopPolicy } from "../LoopPolicies"
import { judgeProgress } from "./judgeProgress"

/**
 * What the brakes learn from an Attempt's recorded outcome: a provider's quota reset holds the Agent, a pull request
 * the Loop opened counts toward its WIP limit, and the Item's no-progress streak moves (and may park it).
 */
export const afterAttempt = Effect.fn("Brakes.afterAttempt")(function*(
  run: Run,
  attempt: Attempt,
  outcome: AttemptOutcome,
  policy: LoopPolicy
) {
  const brakes = yield* BrakeStore
  const now = yield* Clock.currentTimeMillis

  if (outcome._tag === "Failed" && outcome.failure._tag === "InfraFailure") {
    const until = outcome.failure.retryAt
    if (until !== undefined && until > now) {
      yield* brakes.holdAgent({ agent: run.agent, until, reason: outcome.failure.reason, attemptId: attempt.id, at: now })
      yield* Effect.logInfo(`agent ${run.agent} held until ${new Date(until).toISOString()}`)
    }
  }

  if (outcome._tag === "Succeeded") {
    const pr = outcome.result.pullRequestNumber
    if (pr !== undefined && pr !== run.number) yield* brakes.recordPullRequest(run.loop, run.repository, pr, run.id)
  }

  const max = policy.maxNoProgress ?? 0
  if (max === 0 || policy.attempt.kind === "schedule") return
  const previous = yield* brakes.progress(run.loop, run.itemKey)
  const verdict = judgeProgress(outcome, Option.getOrUndefined(previous))
  if (verdict === undefined) return
  const progress = yield* brakes.recordProgress(run.loop, run.itemKey, verdict, max)
  if (progress.parkedAt === now && verdict._tag === "NoProgress") {
    yield* Effect.logWarning(`item parked after ${progress.streak} attempts without progress`)
  }
})
