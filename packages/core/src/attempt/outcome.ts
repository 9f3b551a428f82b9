import { Schema } from "effect"
import { AttemptFailure } from "./failure"

/** What the Step produced: the branch and pull request it left behind. */
export const StepResult = Schema.Struct({
  commits: Schema.Array(Schema.String),
  branch: Schema.optional(Schema.String),
  pullRequestNumber: Schema.optional(Schema.Number),
  pullRequestUrl: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String)
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
