import { budgetDayOf } from "@usine/core/config/BudgetConfig"
import type { DayUsage } from "@usine/store/BrakeStore"
import type { CapStatus } from "./brakesView"

/** How many UTC days the Usage page shows, today included. */
const USAGE_DAYS = 7

/** Usage per UTC day for the daemon, each Loop and each repository, newest day first, and today's caps. */
export interface UsageView {
  readonly days: ReadonlyArray<string>
  readonly global: ReadonlyArray<DayUsage>
  readonly loops: ReadonlyArray<DayUsage>
  readonly repositories: ReadonlyArray<DayUsage>
  readonly caps: ReadonlyArray<CapStatus>
}

/** The UTC days the page covers, newest first. */
export const usageDays = (now: number): ReadonlyArray<string> =>
  Array.from({ length: USAGE_DAYS }, (_, back) => budgetDayOf(now - back * 86_400_000))

export const usageView = (days: ReadonlyArray<string>, rows: ReadonlyArray<DayUsage>, caps: ReadonlyArray<CapStatus>): UsageView => {
  const newestFirst = [...rows].sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : a.name < b.name ? -1 : 1))
  return {
    days,
    global: newestFirst.filter((r) => r.scope === "global"),
    loops: newestFirst.filter((r) => r.scope === "loop"),
    repositories: newestFirst.filter((r) => r.scope === "repository"),
    caps
  }
}
