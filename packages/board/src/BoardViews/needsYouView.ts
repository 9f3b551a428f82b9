import type { NeedsYou } from "@usine/store/ReadModel/needsYou"
import type { PollFailureView, RateQuotaView } from "../PollFailureFeed"
import type { WorkerStatus } from "../WorkerStatusFeed"
import type { BrakesView } from "./brakesView"

/** Below this share of its limit, a rate quota is shown on Needs you. */
export const LOW_RATE_SHARE = 0.1

/** Everything that waits on the operator. */
export interface NeedsYouView extends NeedsYou {
  readonly pollFailures: ReadonlyArray<PollFailureView>
  readonly lowRateQuotas: ReadonlyArray<RateQuotaView>
  /** Workers that lost a capability or are not healthy. */
  readonly workerAlerts: ReadonlyArray<WorkerStatus>
  /** Held Runs, parked Items, Agents waiting for a quota reset, daily caps reached. */
  readonly brakes: BrakesView
}

export const needsYouView = (
  ledger: NeedsYou,
  pollFailures: ReadonlyArray<PollFailureView>,
  quotas: ReadonlyArray<RateQuotaView>,
  workers: ReadonlyArray<WorkerStatus>,
  brakes: BrakesView
): NeedsYouView => ({
  ...ledger,
  brakes,
  pollFailures,
  lowRateQuotas: quotas.filter((q) => q.limit > 0 && q.remaining < q.limit * LOW_RATE_SHARE),
  workerAlerts: workers.filter((w) => w.health !== "ok" || w.lostCapabilities.length > 0)
})
