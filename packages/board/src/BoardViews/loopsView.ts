import type { CycleAsk } from "@usine/store/ReadModel/CycleAsk"
import type { LoopsOverview } from "@usine/store/ReadModel/loopsOverview"
import type { StateCounts } from "@usine/store/ReadModel/runList"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import type { LoopInfo } from "../BoardSettings"

export interface LoopView {
  readonly name: string
  /** Absent for a Loop the ledger knows but usine.yaml no longer declares. */
  readonly info?: LoopInfo | undefined
  readonly counts: StateCounts
  readonly paused: boolean
  readonly asks: ReadonlyArray<CycleAsk>
}

export interface LoopsView {
  readonly loops: ReadonlyArray<LoopView>
}

const none = Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, 0])) as StateCounts

/** Configured Loops in file order, then Loops only the ledger remembers. */
export const loopsView = (configured: ReadonlyArray<LoopInfo>, overview: LoopsOverview): LoopsView => {
  const names = [...configured.map((l) => l.name), ...overview.loops.map((l) => l.loop)]
  return {
    loops: [...new Set(names)].map((name): LoopView => {
      const activity = overview.loops.find((l) => l.loop === name)
      const info = configured.find((l) => l.name === name)
      return {
        name,
        ...(info === undefined ? {} : { info }),
        counts: activity?.counts ?? none,
        paused: activity?.paused ?? false,
        asks: overview.asks.filter((ask) => ask.loop === name)
      }
    })
  }
}
