/** Which brake holds an open Run's next Attempt. */
export type HoldKind = "AgentQuota" | "DailyCap" | "NoProgress" | "OpenPullRequests" | "RetryBackoff"
