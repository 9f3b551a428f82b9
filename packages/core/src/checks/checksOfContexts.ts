/** A check run or commit status on a pull request's head, as `item.checks.all[]`. */
export interface CheckFields {
  readonly name: string
  /** `queued`, `in_progress`, `completed`, … (a commit status: `pending` or `completed`). */
  readonly status: string
  /** Lowercase, once completed: `success`, `failure`, `timed_out`, …, a status's `error`; empty before. */
  readonly conclusion: string
  readonly url: string
}

/** How many checks of a head commit passed, failed and are still running. */
interface CheckCounts {
  readonly total: number
  /** `success`, `neutral`, `skipped`. */
  readonly passed: number
  /** `failure`, `timed_out`, `cancelled`, `action_required`, `startup_failure`, `stale`, and a status's `error`. */
  readonly failed: number
  /** Not completed yet. */
  readonly pending: number
}

/** `item.checks`: every check on the head commit and the counts by conclusion. */
export interface ChecksFields extends CheckCounts {
  readonly all: ReadonlyArray<CheckFields>
}

/** One node of GitHub's `statusCheckRollup.contexts`: a `CheckRun` or a `StatusContext`. */
export interface CheckContextNode {
  readonly __typename: string
  readonly name?: string | undefined
  readonly status?: string | undefined
  readonly conclusion?: string | null | undefined
  readonly detailsUrl?: string | null | undefined
  readonly context?: string | undefined
  readonly state?: string | undefined
  readonly targetUrl?: string | null | undefined
}

const PASSED = new Set(["success", "neutral", "skipped"])
const FAILED = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale", "error"])

const checkOf = (node: CheckContextNode): CheckFields =>
  node.__typename === "StatusContext"
    ? {
        name: node.context ?? "",
        status: node.state === "PENDING" || node.state === "EXPECTED" ? "pending" : "completed",
        conclusion: node.state === "PENDING" || node.state === "EXPECTED" ? "" : (node.state ?? "").toLowerCase(),
        url: node.targetUrl ?? ""
      }
    : {
        name: node.name ?? "",
        status: (node.status ?? "").toLowerCase(),
        conclusion: (node.conclusion ?? "").toLowerCase(),
        url: node.detailsUrl ?? ""
      }

/**
 * The checks of a head commit from its rollup's contexts: what feedback Loops read as `item.checks` and what the
 * Board's cards count (issue 21).
 */
export const checksOfContexts = (nodes: ReadonlyArray<CheckContextNode>): ChecksFields => {
  const all = nodes.map(checkOf)
  return {
    all,
    total: all.length,
    passed: all.filter((c) => PASSED.has(c.conclusion)).length,
    failed: all.filter((c) => FAILED.has(c.conclusion)).length,
    pending: all.filter((c) => c.status !== "completed").length
  }
}
