import type { HoldKind } from "@usine/core/brakes/HoldKind"

/** What the ledger shows, in the transaction that ends a hold, about why the Run no longer waits. */
export interface ReleaseFacts {
  readonly now: number
  readonly kind: HoldKind
  /** When the brake was to lift by itself, if it was. */
  readonly until: number | undefined
  /** The Run's state now and the reason of its newest transition. */
  readonly state: string
  readonly lastReason: string | undefined
  /** AgentQuota: the Agent's quota hold on record, if any. */
  readonly quotaUntil: number | undefined
  /** DailyCap: the caps of today an operator raised since the hold began (`loop build`, `the daemon`). */
  readonly raisedCaps: ReadonlyArray<string>
  /** OpenPullRequests: the Loop's pull requests seen merged or closed since the hold began (`acme/app#40`). */
  readonly closedPullRequests: ReadonlyArray<string>
  /** NoProgress: the Item is still parked. */
  readonly stillParked: boolean
}

const OPEN: ReadonlySet<string> = new Set(["Pending", "Waiting", "Queued", "Running", "Reviewing"])
const LISTED = 5

const label: Record<HoldKind, string> = {
  AgentQuota: "provider quota",
  DailyCap: "daily cap",
  NoProgress: "no-progress park",
  OpenPullRequests: "open pull request limit",
  RetryBackoff: "retry backoff"
}

const iso = (at: number) => new Date(at).toISOString()

const list = (names: ReadonlyArray<string>) =>
  names.length <= LISTED ? names.join(", ") : `${names.slice(0, LISTED).join(", ")} and ${names.length - LISTED} more`

/**
 * Why a held Run stopped waiting. The engine only says that it did (it passed the brakes, or its fiber ended), so the
 * cause is read from the ledger; a cause the ledger cannot show (a usine.yaml change, a daemon stopping) is named as
 * such rather than guessed.
 */
export const releaseWhy = (facts: ReleaseFacts): string => {
  if (!OPEN.has(facts.state)) {
    return `the Run is ${facts.state}${facts.lastReason === undefined ? "" : ` (${facts.lastReason})`}`
  }
  switch (facts.kind) {
    case "AgentQuota": {
      if (facts.quotaUntil === undefined || facts.quotaUntil <= facts.now) {
        return `the provider's quota reset at ${iso(facts.quotaUntil ?? facts.until ?? facts.now)}`
      }
      break
    }
    case "DailyCap": {
      if (facts.until !== undefined && facts.until <= facts.now) return "a new UTC day began"
      if (facts.raisedCaps.length > 0) return `the operator raised the daily cap of ${facts.raisedCaps.join(" and ")}`
      break
    }
    case "OpenPullRequests": {
      if (facts.closedPullRequests.length > 0) return `${list(facts.closedPullRequests)} merged or closed`
      break
    }
    case "NoProgress": {
      if (!facts.stillParked) return "the operator let the Item run again"
      break
    }
    case "RetryBackoff": {
      if (facts.until !== undefined && facts.until <= facts.now) return `the automatic retry fell due at ${iso(facts.until)}`
      break
    }
  }
  return `the ${label[facts.kind]} no longer holds it (usine.yaml changed), or the daemon stopped (a restart checks again)`
}
