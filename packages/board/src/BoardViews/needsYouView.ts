import type { NeedsYou } from "@usine/store/ReadModel/needsYou"
import type { PollFailureView, RateQuotaView } from "../PollFailureFeed"
import type { WorkerStatus } from "../WorkerStatusFeed"

/** Below this share of its limit, a rate quota is shown on Needs you. */
export const LOW_RATE_SHARE = 0.1

/** Everything that waits on the operator. */
export interface NeedsYouView extends NeedsYou {
  readonly pollFailures: ReadonlyArray<PollFailureView>
  readonly lowRateQuotas: ReadonlyArray<RateQuotaView>
  /** Workers that lost a capability or are not healthy. */
  readonly workerAlerts: ReadonlyArray<WorkerStatus>
}

export const needsYouView = (
  ledger: NeedsYou,
  pollFailures: ReadonlyArray<PollFailureView>,
  quotas: ReadonlyArray<RateQuotaView>,
  workers: ReadonlyArray<WorkerStatus>
): NeedsYouView => ({
  ...ledger,
  pollFailures,
  lowRateQuotas: quotas.filter((q) => q.limit > 0 && q.remaining < q.limit * LOW_RATE_SHARE),
  workerAlerts: workers.filter((w) => w.health !== "ok" || w.lostCapabilities.length > 0)
})
