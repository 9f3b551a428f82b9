import { Schema } from "effect"
import { NonEmptyString } from "./ConfigScalars"
import { GitHubLogin } from "../trust/TrustPolicy"

/** Labels to add to an Item and to take off it at one point of a Run. */
export const LabelChange = Schema.Struct({
  add: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] }),
  remove: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] })
})
export type LabelChange = typeof LabelChange.Type

/**
 * When a Run starts (each Attempt), and when it ends as Succeeded, Failed or Canceled (after it ran): the kanban moves
 * by itself.
 */
export const StatusLabels = Schema.Struct({
  running: Schema.optional(LabelChange),
  succeeded: Schema.optional(LabelChange),
  failed: Schema.optional(LabelChange),
  canceled: Schema.optional(LabelChange)
})
export type StatusLabels = typeof StatusLabels.Type

/**
 * A canceled Run without a `canceled` entry takes off what `running` put on and adds nothing: the card leaves the
 * working column, and putting back the label that triggered it would only start the Loop again.
 */
export const withCanceledDefault = (labels: StatusLabels): StatusLabels =>
  labels.canceled !== undefined || labels.running === undefined || labels.running.add.length === 0
    ? labels
    : { ...labels, canceled: { add: [], remove: labels.running.add } }

/**
 * A login, `labeller` (who added the label the Loop's `if:` reads, as the trust check judged it) or `approver` (the
 * login the Run's approval names in its audit row). One nobody can name is skipped with a note on the Run.
 */
const Reviewer = Schema.Union(Schema.Literal("labeller", "approver"), GitHubLogin)

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
