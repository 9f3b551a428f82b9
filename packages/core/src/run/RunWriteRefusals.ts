import { Schema } from "effect"

/** No Run has this id. */
export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", { runId: Schema.String }) {
  override get message() {
    return `run ${this.runId} does not exist`
  }
}

/** The action is not legal in the Run's current state (the board answers 409). */
export class RunStateConflict extends Schema.TaggedError<RunStateConflict>()("RunStateConflict", {
  runId: Schema.String,
  action: Schema.String,
  state: Schema.String
}) {
  override get message() {
    return `cannot ${this.action} run ${this.runId}: it is ${this.state}`
  }
}

/** The caller read an older version of the Run than the ledger holds; nothing was written. */
export class StaleRunVersion extends Schema.TaggedError<StaleRunVersion>()("StaleRunVersion", {
  runId: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return `run ${this.runId} changed: expected version ${this.expected}, found ${this.actual}`
  }
}

/** The Attempt does not exist, or is not the open Attempt the action addresses. */
export class AttemptNotOpen extends Schema.TaggedError<AttemptNotOpen>()("AttemptNotOpen", {
  attemptId: Schema.String
}) {
  override get message() {
    return `attempt ${this.attemptId} is not the open attempt of its run`
  }
}
