import { Schema } from "effect"

/** One gate's setting: a person must approve, or nobody is asked. */
const GateSetting = Schema.Literal("required", "none")

/** Who may approve the start (ADR 0103): anyone with the role, or anyone but the person who labelled the Item. */
export const StartApprover = Schema.Literal("anyone", "other_than_labeller")
export type StartApprover = typeof StartApprover.Type

/** Who may approve the pull request: anyone with the role, or anyone but the person who approved the start. */
export const PullRequestApprover = Schema.Literal("anyone", "other_than_approver")
export type PullRequestApprover = typeof PullRequestApprover.Type

/** `pull_request: {by: other_than_approver}`: the gate is required, with its four-eyes rule. */
const PullRequestRule = Schema.Struct({ by: PullRequestApprover })

const ApprovalMap = Schema.Struct({
  start: Schema.optional(GateSetting),
  by: Schema.optional(StartApprover),
  pullRequest: Schema.optional(Schema.Union(GateSetting, PullRequestRule)).pipe(Schema.fromKey("pull_request"))
})

/** Both gates as a Loop uses them, each with who may approve it. */
const Approval = Schema.Struct({
  start: GateSetting,
  startBy: StartApprover,
  pullRequest: GateSetting,
  pullRequestBy: PullRequestApprover
})
type Approval = typeof Approval.Type

/** `start: required`, nobody asked at the pull request, anyone with the role approving: one person's team. */
export const defaultApproval: Approval = { start: "required", startBy: "anyone", pullRequest: "none", pullRequestBy: "anyone" }

/**
 * `approval:` as written: `required | none` is the shorthand for `start`, or a map `{start, by, pull_request}` where
 * `pull_request` is `required | none` or `{by: …}` (required, with its rule). Decodes to both gates and their rules.
 */
export const ApprovalConfig = Schema.transform(Schema.Union(GateSetting, ApprovalMap), Approval, {
  strict: true,
  decode: (written) => {
    if (typeof written === "string") return { ...defaultApproval, start: written }
    const pullRequest = written.pullRequest ?? "none"
    return {
      start: written.start ?? "required",
      startBy: written.by ?? "anyone",
      pullRequest: typeof pullRequest === "string" ? pullRequest : "required" as const,
      pullRequestBy: typeof pullRequest === "string" ? "anyone" as const : pullRequest.by
    }
  },
  encode: (approval) => ({
    start: approval.start,
    by: approval.startBy,
    pullRequest: approval.pullRequestBy === "anyone" ? approval.pullRequest : { by: approval.pullRequestBy }
  })
})
