import { Effect, Option } from "effect"
import { budgetDayOf, nextBudgetDayAt } from "@usine/core/config/BudgetConfig"
import type { Run } from "@usine/core/run/Run"
import { isStartable } from "@usine/core/run/state"
import type { HoldKind } from "@usine/core/brakes/HoldKind"
import { BrakeStore } from "@usine/store/BrakeStore"
import { LoopPolicies, type LoopPolicy } from "../LoopPolicies"
import { dailyCapReached, raisedCap } from "./dailyCap"
import { retryBackoff } from "./retryBackoff"

export interface Hold {
  readonly kind: HoldKind
  readonly reason: string
  /** When the brake lifts by itself; absent when only the operator or polling lifts it. */
  readonly until: number | undefined
}

const iso = (at: number) => new Date(at).toISOString()

/**
 * Which brake, if any, keeps the Run's next Attempt from starting now. An automatic retry's backoff holds its Run; a
 * provider's quota and the daily caps hold every new Attempt; a no-progress park and the WIP limit hold only a Run that
 * has not started.
 */
export const holdVerdict = Effect.fn("Brakes.holdVerdict")(function*(run: Run, fiberPolicy: LoopPolicy, now: number) {
  const brakes = yield* BrakeStore
  const policies = yield* LoopPolicies
  // A reload of usine.yaml (a raised cap, a lifted limit) applies to Runs already held.
  const policy = Option.getOrElse(policies.loop(run.loop), () => fiberPolicy)
  const unstarted = isStartable(run.state)

  const backoff = yield* retryBackoff(run, now)
  if (Option.isSome(backoff)) return backoff

  const quota = (yield* brakes.agentHolds(now)).find((hold) => hold.agent === run.agent)
  if (quota !== undefined) {
    return Option.some<Hold>({
      kind: "AgentQuota",
      reason: `waiting for quota reset at ${iso(quota.until)}: agent ${run.agent} was refused (${quota.reason})`,
      until: quota.until
    })
  }

  if (unstarted && (policy.maxNoProgress ?? 0) > 0) {
    const progress = yield* brakes.progress(run.loop, run.itemKey)
    if (Option.isSome(progress) && progress.value.parkedAt !== undefined) {
      const evidence = progress.value.evidence.join("; ")
      return Option.some<Hold>({
        kind: "NoProgress",
        reason: `parked after ${progress.value.streak} Attempts without progress on this Item: ${evidence}`,
        until: undefined
      })
    }
  }

  const limit = policy.maxOpenPullRequests
  if (unstarted && limit !== undefined) {
    const open = yield* brakes.openPullRequests(run.loop)
    if (open.length >= limit) {
      const names = open.map((pr) => `${pr.repository}#${pr.number}`).join(", ")
      return Option.some<Hold>({
        kind: "OpenPullRequests",
        reason: `${open.length} of the Loop's pull requests are open (max_open_pull_requests: ${limit}): ${names}`,
        until: undefined
      })
    }
  }

  const caps = [
    { scope: "loop" as const, name: run.loop, configured: policy.budget },
    { scope: "global" as const, name: "", configured: policies.budget() }
  ].filter((c) => c.configured?.dailyTokens !== undefined || c.configured?.dailyCostUsd !== undefined)
  if (caps.length > 0) {
    const day = budgetDayOf(now)
    const used = yield* brakes.usageOfDays(day, day)
    const raises = yield* brakes.raises(day)
    for (const { configured, name, scope } of caps) {
      const cap = raisedCap(scope, name, configured, raises.find((r) => r.scope === scope && r.name === name))
      const reached = dailyCapReached(cap, used.find((u) => u.scope === scope && u.name === name)?.usage)
      if (Option.isSome(reached)) {
        const until = nextBudgetDayAt(now)
        return Option.some<Hold>({
          kind: "DailyCap",
          reason: `${reached.value}; new Attempts wait until ${iso(until)} or a raise of the cap`,
          until
        })
      }
    }
  }
  return Option.none<Hold>()
})
