import { Schema } from "effect"

const fields = {
  /** One line an operator can act on. */
  reason: Schema.String,
  /** Output, paths, figures: what shows the reason is true. */
  evidence: Schema.optionalWith(Schema.String, { default: () => "" })
}

/** The machine, network, Worker or provider failed; the same Attempt may succeed again. */
export class InfraFailure extends Schema.TaggedError<InfraFailure>()("InfraFailure", {
  ...fields,
  /** When the provider says it will accept work again (a quota reset), as epoch milliseconds. */
  retryAt: Schema.optional(Schema.Number),
  /**
   * Which infrastructure failed, when usine knows a name for it: `SetupFailed`, the Loop's `setup:` commands;
   * `DaemonStopped`, the daemon stopped (a crash, a lost leadership) while it prepared the Attempt, before any agent ran.
   */
  kind: Schema.optional(Schema.Literal("SetupFailed", "DaemonStopped"))
}) {
  readonly category = "infrastructure" as const
  readonly retryable = true
  override get message() {
    return `infrastructure failure${this.kind === undefined ? "" : ` (${this.kind})`}: ${this.reason}`
  }
}

/** usine itself is wrong; retrying will not help until it is fixed. */
export class DefectFailure extends Schema.TaggedError<DefectFailure>()("DefectFailure", fields) {
  readonly category = "defect" as const
  readonly retryable = false
  override get message() {
    return `defect: ${this.reason}`
  }
}

/** The agent did not deliver: it failed, verification kept failing, a guard refused, a capability is missing. */
export class AgentFailure extends Schema.TaggedError<AgentFailure>()("AgentFailure", fields) {
  readonly category = "agent" as const
  readonly retryable = false
  override get message() {
    return `agent failure: ${this.reason}`
  }
}

/** The Attempt ran past `max_attempt_minutes`. */
export class RunawayFailure extends Schema.TaggedError<RunawayFailure>()("RunawayFailure", {
  ...fields,
  minutes: Schema.Number
}) {
  readonly category = "runaway" as const
  readonly retryable = false
  override get message() {
    return `runaway: still running after ${this.minutes} minutes`
  }
}

/** The Attempt crossed a token or cost cap. */
export class ChildSessionBudgetFailure extends Schema.TaggedError<ChildSessionBudgetFailure>()(
  "ChildSessionBudgetFailure",
  { ...fields, limit: Schema.String, used: Schema.String }
) {
  readonly category = "budget" as const
  readonly retryable = false
  override get message() {
    return `budget: used ${this.used} of ${this.limit}`
  }
}

export const AttemptFailure = Schema.Union(
  InfraFailure,
  DefectFailure,
  AgentFailure,
  RunawayFailure,
  ChildSessionBudgetFailure
)
export type AttemptFailure = typeof AttemptFailure.Type

/** The same failure with `evidence` in place of its own. */
export const withEvidence = (failure: AttemptFailure, evidence: string): AttemptFailure => {
  const { reason } = failure
  switch (failure._tag) {
    case "InfraFailure":
      return new InfraFailure({
        reason,
        evidence,
        ...(failure.retryAt === undefined ? {} : { retryAt: failure.retryAt }),
        ...(failure.kind === undefined ? {} : { kind: failure.kind })
      })
    case "DefectFailure":
      return new DefectFailure({ reason, evidence })
    case "AgentFailure":
      return new AgentFailure({ reason, evidence })
    case "RunawayFailure":
      return new RunawayFailure({ reason, evidence, minutes: failure.minutes })
    case "ChildSessionBudgetFailure":
      return new ChildSessionBudgetFailure({ reason, evidence, limit: failure.limit, used: failure.used })
  }
}
