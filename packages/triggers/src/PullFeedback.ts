/** A check run or commit status on a pull request's head, as `item.checks.all[]`. */
export interface CheckFields {
  readonly name: string
  /** `queued`, `in_progress`, `completed`, … (a commit status: `pending` or `completed`). */
  readonly status: string
  /** Lowercase, once completed: `success`, `failure`, `timed_out`, …, a status's `error`; empty before. */
  readonly conclusion: string
  readonly url: string
}

/** `item.checks`: every check on the head commit and the counts by conclusion. */
export interface ChecksFields {
  readonly all: ReadonlyArray<CheckFields>
  readonly total: number
  /** `success`, `neutral`, `skipped`. */
  readonly passed: number
  /** `failure`, `timed_out`, `cancelled`, `action_required`, `startup_failure`, `stale`, and a status's `error`. */
  readonly failed: number
  /** Not completed yet. */
  readonly pending: number
}

/** An unresolved inline review thread, as `item.reviewThreads[]`: its first comment and where it is. */
export interface ReviewThreadFields {
  readonly path: string
  /** The line in the diff's new file; 0 when GitHub gives none (an outdated thread). */
  readonly line: number
  readonly body: string
  readonly author: string
  readonly authorAssociation: string
  readonly createdAt: string
  readonly url: string
}

interface ContextNode {
  readonly __typename: string
  readonly name?: string
  readonly status?: string
  readonly conclusion?: string | null
  readonly detailsUrl?: string | null
  readonly context?: string
  readonly state?: string
  readonly targetUrl?: string | null
}

interface ThreadNode {
  readonly isResolved: boolean
  readonly path: string
  readonly line: number | null
  readonly comments: {
    readonly nodes: ReadonlyArray<{
      readonly body: string
      readonly url: string
      readonly createdAt: string
      readonly authorAssociation: string
      readonly author: { readonly login: string } | null
    }>
  }
}

/** The GraphQL parts of a pull request's slice that feedback comes from. */
export interface FeedbackNode {
  readonly commits?: {
    readonly nodes: ReadonlyArray<{
      readonly commit: { readonly statusCheckRollup: { readonly contexts: { readonly nodes: ReadonlyArray<ContextNode> } } | null }
    }>
  }
  readonly reviewThreads?: { readonly nodes: ReadonlyArray<ThreadNode> }
}

const PASSED = new Set(["success", "neutral", "skipped"])
const FAILED = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale", "error"])

const checkOf = (node: ContextNode): CheckFields =>
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

/** The checks of the head commit; none on an issue or before CI reports. */
export const checksOf = (node: FeedbackNode): ChecksFields => {
  const all = (node.commits?.nodes[0]?.commit.statusCheckRollup?.contexts.nodes ?? []).map(checkOf)
  return {
    all,
    total: all.length,
    passed: all.filter((c) => PASSED.has(c.conclusion)).length,
    failed: all.filter((c) => FAILED.has(c.conclusion)).length,
    pending: all.filter((c) => c.status !== "completed").length
  }
}

/** The unresolved inline review threads, each by its first comment. */
export const reviewThreadsOf = (node: FeedbackNode): ReadonlyArray<ReviewThreadFields> =>
  (node.reviewThreads?.nodes ?? []).flatMap((thread) => {
    const first = thread.comments.nodes[0]
    if (thread.isResolved || first === undefined) return []
    return [{
      path: thread.path,
      line: thread.line ?? 0,
      body: first.body,
      author: first.author?.login ?? "ghost",
      authorAssociation: first.authorAssociation,
      createdAt: first.createdAt,
      url: first.url
    }]
  })
