/** Which brake holds an open Run's next Attempt. */
export type HoldKind = "AgentQuota" | "DailyCap" | "NoProgress" | "OpenPullRequests" | "RetryBackoff"

/** Every brake kind, for a metric that shows each one before it has held anything. */
export const HOLD_KINDS: ReadonlyArray<HoldKind> = ["AgentQuota", "DailyCap", "NoProgress", "OpenPullRequests", "RetryBackoff"]
