import { Effect } from "effect"
import type { RunFilter, RunPage, StateCounts } from "@usine/store/ReadModel/runList"

/** How many UTC days the Runs page's chart covers, today included. */
export const RUNS_CHART_DAYS = 14

const DAY = 86_400_000

/** Runs received on one UTC day, by the state they are in now. */
export interface DayCounts {
  readonly day: string
  readonly counts: StateCounts
}

/** The last `days` UTC days up to the one holding `now`, oldest first, as [start, end) in epoch ms. */
export const dayWindows = (now: number, days: number): ReadonlyArray<{ readonly day: string; readonly since: number; readonly until: number }> => {
  const today = Math.floor(now / DAY) * DAY
  return Array.from({ length: days }, (_, i) => {
    const since = today - (days - 1 - i) * DAY
    return { day: new Date(since).toISOString().slice(0, 10), since, until: since + DAY }
  })
}

/**
 * Counts per state for each of the last days, under the page's Loop, repository and Item filters: the Runs list's
 * own counting query once per day (an indexed range on `received_at`), asked for one row only.
 */
export const runsByDay = (
  runs: (filter: RunFilter) => Effect.Effect<RunPage>,
  filter: Pick<RunFilter, "loop" | "repository" | "itemKey">,
  now: number
): Effect.Effect<ReadonlyArray<DayCounts>> =>
  Effect.forEach(dayWindows(now, RUNS_CHART_DAYS), ({ day, since, until }) =>
    Effect.map(runs({ ...filter, since, until, limit: 0 }), (page) => ({ day, counts: page.counts })))
