import { Effect } from "effect"
import type { DayCountFilter, DayStateCount } from "@usine/store/ReadModel/runCountsByDay"
import type { StateCounts } from "@usine/store/ReadModel/runList"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"

/** How many UTC days the Runs page's chart covers, today included. */
const RUNS_CHART_DAYS = 14

const DAY = 86_400_000

/** Runs received on one UTC day, by the state they are in now. */
export interface DayCounts {
  readonly day: string
  readonly counts: StateCounts
}

/** The last `days` UTC days up to the one holding `now`, oldest first, as their starts in epoch ms. */
const dayStarts = (now: number, days: number): ReadonlyArray<number> => {
  const today = Math.floor(now / DAY) * DAY
  return Array.from({ length: days }, (_, i) => today - (days - 1 - i) * DAY)
}

/** Every day of the window with its counts per state, zero where the ledger counted none. */
const dayCounts = (starts: ReadonlyArray<number>, counted: ReadonlyArray<DayStateCount>): ReadonlyArray<DayCounts> =>
  starts.map((start) => {
    const counts = Object.fromEntries(RUN_STATE_TAGS.map((tag) => [tag, 0])) as Record<(typeof RUN_STATE_TAGS)[number], number>
    for (const row of counted) if (row.day === start) counts[row.state] = row.n
    return { day: new Date(start).toISOString().slice(0, 10), counts }
  })

/** The last 14 days' counts per state under the page's Loop, repository and Item filters: one grouped ledger query. */
export const runsByDay = (
  count: (filter: DayCountFilter) => Effect.Effect<ReadonlyArray<DayStateCount>>,
  filter: Omit<DayCountFilter, "since" | "until">,
  now: number
): Effect.Effect<ReadonlyArray<DayCounts>> => {
  const starts = dayStarts(now, RUNS_CHART_DAYS)
  const since = starts[0] ?? 0
  return Effect.map(count({ ...filter, since, until: since + RUNS_CHART_DAYS * DAY }), (counted) => dayCounts(starts, counted))
}
