import { Option } from "effect"
import type { GlobalBudget } from "@usine/core/config/BudgetConfig"
import { parseItemKey } from "@usine/core/ids/ItemKey"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { dailyCapReached, raisedCap } from "@usine/engine/Brakes/dailyCap"
import type { AgentHold, CapRaise, DayUsage, HeldRun, ItemProgress } from "@usine/store/BrakeStore"
import type { LoopInfo } from "../BoardSettings"

/** A daily cap as it stands today: usine.yaml's figure, today's raise, what was used. */
export interface CapStatus {
  /** Absent for the daemon's cap over every Loop. */
  readonly loop?: string | undefined
  readonly day: string
  readonly used: Usage | undefined
  readonly configuredTokens?: number | undefined
  readonly configuredCostUsd?: number | undefined
  /** Today's caps, raises included. */
  readonly tokens?: number | undefined
  readonly costUsd?: number | undefined
  /** Why no new Attempt of the scope starts today; absent while under every cap. */
  readonly reached?: string | undefined
}

/** A parked Item with its repository and number spelled out. */
export interface ParkedItem extends ItemProgress {
  readonly repository: string
  readonly number: number | undefined
}

/** What the brakes hold, for Needs you. */
export interface BrakesView {
  readonly held: ReadonlyArray<HeldRun>
  readonly moreHeld: boolean
  readonly parked: ReadonlyArray<ParkedItem>
  readonly agentHolds: ReadonlyArray<AgentHold>
  /** Daily caps reached today, each with its raise at hand. */
  readonly capsReached: ReadonlyArray<CapStatus>
}

/** Every configured daily cap (the daemon's first, then each Loop's) with today's figures. */
export const capStatuses = (
  day: string,
  loops: ReadonlyArray<LoopInfo>,
  global: GlobalBudget | undefined,
  usage: ReadonlyArray<DayUsage>,
  raises: ReadonlyArray<CapRaise>
): ReadonlyArray<CapStatus> => {
  const scopes = [
    { scope: "global" as const, name: "", configured: global },
    ...loops.map((loop) => ({ scope: "loop" as const, name: loop.name, configured: loop.budget }))
  ].filter(({ configured }) => configured?.dailyTokens !== undefined || configured?.dailyCostUsd !== undefined)
  return scopes.map(({ configured, name, scope }): CapStatus => {
    const cap = raisedCap(scope, name, configured, raises.find((r) => r.scope === scope && r.name === name))
    const used = usage.find((u) => u.day === day && u.scope === scope && u.name === name)?.usage
    const reached = dailyCapReached(cap, used)
    return {
      ...(scope === "loop" ? { loop: name } : {}),
      day,
      used,
      configuredTokens: configured?.dailyTokens,
      configuredCostUsd: configured?.dailyCostUsd,
      tokens: cap.tokens,
      costUsd: cap.costUsd,
      ...(Option.isSome(reached) ? { reached: reached.value } : {})
    }
  })
}

export const parkedItem = (progress: ItemProgress): ParkedItem => {
  const item = parseItemKey(progress.itemKey)
  return { ...progress, repository: item?.repository ?? "", number: item?.number }
}
