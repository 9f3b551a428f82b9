import { Schema } from "effect"

/** A Loop's four-eyes rule (ADR 0103) refuses this person's approval: they labelled the Item or approved its start. */
export class FourEyesRefused extends Schema.TaggedError<FourEyesRefused>()("FourEyesRefused", {
  login: Schema.String,
  runId: Schema.String,
  gate: Schema.Literal("start", "pull_request"),
  rule: Schema.Literal("other_than_labeller", "other_than_approver"),
  /** What the person did that bars them: they labelled the Item, or approved the Run's start. */
  because: Schema.Literal("labelled", "approved")
}) {
  override get message() {
    const did = this.because === "labelled" ? "labelled its Item" : "approved its start"
    const key = this.gate === "start" ? "approval.by" : "approval.pull_request.by"
    return `${this.gate === "start" ? "approving the start" : "approving the pull request"} of ${this.runId} needs another ` +
      `person than @${this.login}, who ${did} (${key}: ${this.rule})`
  }
}
