import { Schema } from "effect"
import { DiffSummary } from "./DiffSummary"
import { AttemptFailure } from "./failure"

/**
 * Work that passed verify and stopped at the pull-request gate (ADR 0063): collected by the daemon, kept in the
 * Worker's mirror under `ref` (the Run's local salvage ref of that Attempt), nothing pushed.
 */
export const HeldWork = Schema.Struct({
  worker: Schema.String,
  head: Schema.String,
  ref: Schema.String,
  /** The pull request body's verification section as this Attempt's rounds make it; the published body carries it. */
  verification: Schema.optional(Schema.String),
  /**
   * The agent's own commit subjects (`<short sha> <subject>`): what is held is usine's commit of its tree (ADR 0081),
   * so the published pull request's title and quoted subjects come from here.
   */
  subjects: Schema.optional(Schema.Array(Schema.String))
})
export type HeldWork = typeof HeldWork.Type

/**
 * What the Step produced: the branch and pull request it left behind, and what its commits change. `diff` is absent
 * when there is no commit, and in outcomes stored before it existed.
 */
export const StepResult = Schema.Struct({
  commits: Schema.Array(Schema.String),
  branch: Schema.optional(Schema.String),
  pullRequestNumber: Schema.optional(Schema.Number),
  pullRequestUrl: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String),
  diff: Schema.optional(DiffSummary),
  /** Set when the Attempt stopped at the pull-request gate: the Run waits in Reviewing, no branch was pushed. */
  held: Schema.optional(HeldWork)
})
export type StepResult = typeof StepResult.Type

export class AttemptSucceeded extends Schema.TaggedClass<AttemptSucceeded>()("Succeeded", {
  result: StepResult
}) {}
export class AttemptFailed extends Schema.TaggedClass<AttemptFailed>()("Failed", {
  failure: AttemptFailure
}) {}
export class AttemptCanceled extends Schema.TaggedClass<AttemptCanceled>()("Canceled", {
  reason: Schema.String
}) {}

/** How an Attempt ended. */
export const AttemptOutcome = Schema.Union(AttemptSucceeded, AttemptFailed, AttemptCanceled)
export type AttemptOutcome = typeof AttemptOutcome.Type
