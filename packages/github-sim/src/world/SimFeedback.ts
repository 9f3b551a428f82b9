/** A check run or a commit status on a commit: what CI reports (`statusCheckRollup` on GraphQL). */
export interface SimCheck {
  readonly id: number
  readonly kind: "check_run" | "status"
  /** A check run's name, a status's context. */
  readonly name: string
  /** Check runs: `queued`, `in_progress`, `completed`; statuses are `completed` unless `pending`. */
  readonly status: "queued" | "in_progress" | "completed"
  /**
   * Check runs: GitHub's conclusion (`success`, `failure`, `neutral`, `cancelled`, `skipped`, `timed_out`,
   * `action_required`, `stale`) once completed; statuses: their state (`success`, `failure`, `error`, `pending`).
   */
  readonly conclusion: string | null
  readonly url: string | null
  readonly createdAt: number
}

/** A comment of an inline review thread. */
export interface SimThreadComment {
  readonly id: number
  readonly body: string
  readonly author: string
  readonly createdAt: number
}

/** An inline review thread on a pull request's diff. */
export interface SimReviewThread {
  readonly id: number
  readonly path: string
  readonly line: number | null
  resolved: boolean
  readonly comments: Array<SimThreadComment>
}
