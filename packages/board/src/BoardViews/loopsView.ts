import type { CycleAsk } from "@usine/store/ReadModel/CycleAsk"
import type { LoopsOverview } from "@usine/store/ReadModel/loopsOverview"
import type { StateCounts } from "@usine/store/ReadModel/runList"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import type { LoopInfo } from "../BoardSettings"
import type { CapStatus } from "./brakesView"

export interface LoopView {
  readonly name: string
  /** Absent for a Loop the ledger knows but usine.yaml no longer declares. */
  readonly info?: LoopInfo | undefined
  readonly counts: StateCounts
  readonly paused: boolean
  readonly asks: ReadonlyArray<CycleAsk>
  /** Triggers refused for trust, over the ledger's life. */
  readonly refused: number
  /** Today's daily cap, when the Loop has one. */
  readonly cap?: CapStatus | undefined
  /** The Loop's pull requests still open, when it has a WIP limit. */
  readonly openPullRequests?: ReadonlyArray<{ readonly repository: string; readonly number: number }> | undefined
}

export interface LoopsView {
  readonly loops: ReadonlyArray<LoopView>
  /** The daemon's daily cap today, when it has one. */
  readonly globalCap?: CapStatus | undefined
}

const none = Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, 0])) as StateCounts

/** Configured Loops in file order, then Loops only the ledger remembers. */
export const loopsView = (
  configured: ReadonlyArray<LoopInfo>,
  overview: LoopsOverview,
  brakes: {
    readonly caps: ReadonlyArray<CapStatus>
    readonly openPullRequests: ReadonlyMap<string, ReadonlyArray<{ readonly repository: string; readonly number: number }>>
  } = { caps: [], openPullRequests: new Map() },
  refusedByLoop: ReadonlyMap<string, number> = new Map()
): LoopsView => {
  const names = [...configured.map((l) => l.name), ...overview.loops.map((l) => l.loop)]
  const globalCap = brakes.caps.find((cap) => cap.loop === undefined)
  return {
    ...(globalCap === undefined ? {} : { globalCap }),
    loops: [...new Set(names)].map((name): LoopView => {
      const activity = overview.loops.find((l) => l.loop === name)
      const info = configured.find((l) => l.name === name)
      return {
        name,
        ...(info === undefined ? {} : { info }),
        counts: activity?.counts ?? none,
        paused: activity?.paused ?? false,
        asks: overview.asks.filter((ask) => ask.loop === name),
        refused: refusedByLoop.get(name) ?? 0,
        cap: brakes.caps.find((cap) => cap.loop === name),
        openPullRequests: brakes.openPullRequests.get(name)
      }
    })
  }
}
