import { Schema } from "effect"
import { NonEmptyString } from "./ConfigScalars"
import { GitHubLogin } from "../trust/TrustPolicy"

/** Labels to add to an Item and to take off it at one point of a Run. */
export const LabelChange = Schema.Struct({
  add: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] }),
  remove: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] })
})
export type LabelChange = typeof LabelChange.Type

/** When a Run starts (each Attempt), and when it ends as Succeeded or Failed: the kanban moves by itself. */
export const StatusLabels = Schema.Struct({
  running: Schema.optional(LabelChange),
  succeeded: Schema.optional(LabelChange),
  failed: Schema.optional(LabelChange)
})
export type StatusLabels = typeof StatusLabels.Type

/** A login, or `labeller`: who added the label the Loop's `if:` reads (the Board has no per-user identity to name an approver). */
export const Reviewer = Schema.Union(Schema.Literal("labeller"), GitHubLogin)

/** How the pull request a Run opens is written. */
export const PullRequestOptions = Schema.Struct({
  /** Issue Loops: `Closes #N` in the body, so merging it closes the issue. */
  closes: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  draft: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  labels: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] }),
  reviewers: Schema.optionalWith(Schema.Array(Reviewer), { default: () => [] })
})
export type PullRequestOptions = typeof PullRequestOptions.Type

export const defaultPullRequestOptions: PullRequestOptions = { closes: true, draft: false, labels: [], reviewers: [] }
