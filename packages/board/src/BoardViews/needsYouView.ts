import type { NeedsYou } from "@usine/store/ReadModel/needsYou"
import type { RefusedTrigger } from "@usine/store/TriggerRefusals"
import type { PollFailureView, RateQuotaView } from "../PollFailureFeed"
import type { WorkerStatus } from "../WorkerStatusFeed"
import type { BrakesView } from "./brakesView"

/** Below this share of its limit, a rate quota is shown on Needs you. */
const LOW_RATE_SHARE = 0.1

/** How many refused triggers Needs you lists; the rest are counted. */
export const REFUSED_SHOWN = 20

/** Triggers refused for trust (ADR 0032): information for the operator, not something to resolve. */
export interface RefusedTriggersView {
  /** The newest refusals first, at most `REFUSED_SHOWN`. */
  readonly recent: ReadonlyArray<RefusedTrigger>
  /** Refusals in the ledger beyond the list. */
  readonly more: number
}

/** The newest refusals and how many more the ledger holds, from every Loop's count. */
export const refusedTriggersView = (
  recent: ReadonlyArray<RefusedTrigger>,
  countsByLoop: ReadonlyMap<string, number>
): RefusedTriggersView => {
  const shown = recent.slice(0, REFUSED_SHOWN)
  const total = [...countsByLoop.values()].reduce((sum, count) => sum + count, 0)
  return { recent: shown, more: Math.max(0, total - shown.length) }
}

/** Everything that waits on the operator. */
export interface NeedsYouView extends NeedsYou {
  readonly pollFailures: ReadonlyArray<PollFailureView>
  readonly lowRateQuotas: ReadonlyArray<RateQuotaView>
  /** Workers that lost a capability or are not healthy. */
  readonly workerAlerts: ReadonlyArray<WorkerStatus>
  /** Held Runs, parked Items, Agents waiting for a quota reset, daily caps reached. */
  readonly brakes: BrakesView
  /** Refused triggers: shown, never counted as failures. */
  readonly refused: RefusedTriggersView
}

export const needsYouView = (
  ledger: NeedsYou,
  pollFailures: ReadonlyArray<PollFailureView>,
  quotas: ReadonlyArray<RateQuotaView>,
  workers: ReadonlyArray<WorkerStatus>,
  brakes: BrakesView,
  refused: RefusedTriggersView
): NeedsYouView => ({
  ...ledger,
  brakes,
  refused,
  pollFailures,
  lowRateQuotas: quotas.filter((q) => q.limit > 0 && q.remaining < q.limit * LOW_RATE_SHARE),
  workerAlerts: workers.filter((w) => w.health !== "ok" || w.lostCapabilities.length > 0)
})

/** What the page title counts: Runs waiting for approval or review, unresolved failures, and Asks ("20+" past a full list). */
export const needsYouCount = (view: NeedsYou): string => {
  const count = view.waiting.length + view.reviewing.length + view.failed.length + view.asks.length
  return view.moreWaiting || view.moreReviewing || view.moreFailed ? `${count}+` : String(count)
}
