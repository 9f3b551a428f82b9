import type { SimReviewThread } from "./SimFeedback"

/** A label of a repository's catalog. */
export interface SimLabel {
  readonly id: number
  name: string
  color: string
  description: string | null
  readonly isDefault: boolean
}

/** A comment on an issue or pull request. */
export interface SimComment {
  readonly id: number
  body: string
  readonly author: string
  readonly createdAt: number
  updatedAt: number
}

/** An entry of an issue's event history (labeled, unlabeled, closed, reopened, merged, ...). */
export interface SimEvent {
  readonly id: number
  readonly event: "labeled" | "unlabeled" | "closed" | "reopened" | "merged" | "renamed" | "head_ref_force_pushed"
  readonly actor: string
  readonly createdAt: number
  readonly label?: { readonly name: string; readonly color: string }
  readonly commitId?: string
}

/** A pull request review. */
export interface SimReview {
  readonly id: number
  readonly author: string
  readonly state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING"
  readonly body: string
  readonly submittedAt: number
}

/** The pull-request half of an item. */
export interface SimPull {
  readonly head: string
  headSha: string
  base: string
  baseSha: string
  draft: boolean
  merged: boolean
  mergedAt: number | null
  mergedBy: string | null
  mergeCommitSha: string | null
  /** REST `mergeable`; null while GitHub would still be computing it. */
  mergeable: boolean | null
  mergeableState: string
  reviewDecision: "APPROVED" | "CHANGES_REQUESTED" | "REVIEW_REQUIRED" | null
  readonly reviews: Array<SimReview>
  /** Logins asked for a review (`POST …/requested_reviewers`). */
  requestedReviewers?: Array<string>
  /** Inline review threads (`addReviewThread`). */
  reviewThreads?: Array<SimReviewThread>
}

/** An issue, or a pull request (an issue with `pull`): they share one number sequence. */
export interface SimItem {
  readonly id: number
  readonly pullId: number
  readonly number: number
  title: string
  body: string | null
  /** The last change of the body after the item was opened: GraphQL `lastEditedAt` and `editor`. */
  lastEdit: { readonly at: number; readonly editor: string } | null
  state: "open" | "closed"
  stateReason: "completed" | "not_planned" | "reopened" | null
  readonly author: string
  labels: Array<string>
  assignees: Array<string>
  readonly comments: Array<SimComment>
  readonly events: Array<SimEvent>
  readonly createdAt: number
  updatedAt: number
  closedAt: number | null
  closedBy: string | null
  locked: boolean
  readonly pull?: SimPull
}
