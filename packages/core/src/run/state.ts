import { Schema } from "effect"
import { EventId } from "../ids/EventId"

/** The operator canceled the Run. */
export class OperatorCanceled extends Schema.TaggedClass<OperatorCanceled>()("OperatorCanceled", {}) {}
/** A newer Event for the same Loop and Item replaced this unstarted Run. */
class Superseded extends Schema.TaggedClass<Superseded>()("Superseded", {
  by: Schema.String.pipe(Schema.fromBrand(EventId))
}) {}
/** The Item stopped matching the Loop's `if:` before an Attempt started. */
class Revoked extends Schema.TaggedClass<Revoked>()("Revoked", {}) {}
/** Nobody approved the Run within the Loop's `approval_timeout`. */
class ApprovalTimedOut extends Schema.TaggedClass<ApprovalTimedOut>()("ApprovalTimedOut", {
  afterMinutes: Schema.Number
}) {}

const CancelReason = Schema.Union(OperatorCanceled, Superseded, Revoked, ApprovalTimedOut)
type CancelReason = typeof CancelReason.Type

/** Created, no Attempt, no gate passed. */
export class Pending extends Schema.TaggedClass<Pending>()("Pending", {}) {}
/** Parked on `approval: required`. */
export class Waiting extends Schema.TaggedClass<Waiting>()("Waiting", {}) {}
/** Approved; waits for a Worker slot. */
export class Queued extends Schema.TaggedClass<Queued>()("Queued", {}) {}
/** An Attempt is running, or the next one is about to start. */
export class Running extends Schema.TaggedClass<Running>()("Running", {}) {}
/** The Step result is stored. */
export class Succeeded extends Schema.TaggedClass<Succeeded>()("Succeeded", {}) {}
/** The last Attempt failed and no auto-retry applies. */
export class Failed extends Schema.TaggedClass<Failed>()("Failed", {}) {}
/**
 * Parked at the pull-request gate (`approval.pull_request: required`): verify passed, the work is kept on the Worker
 * and nothing is pushed; no agent process runs. Waits for Approve PR, Request changes or Reject.
 */
export class Reviewing extends Schema.TaggedClass<Reviewing>()("Reviewing", {}) {}
/** Closed without a result, for the reason it carries. */
export class Canceled extends Schema.TaggedClass<Canceled>()("Canceled", { reason: CancelReason }) {}

export const RunState = Schema.Union(Pending, Waiting, Queued, Running, Reviewing, Succeeded, Failed, Canceled)
export type RunState = typeof RunState.Type
export type RunStateTag = RunState["_tag"]

type Open = Pending | Waiting | Queued | Running | Reviewing
type Unstarted = Pending | Waiting | Queued
type Startable = Pending | Queued

export const OPEN_TAGS: ReadonlyArray<Open["_tag"]> = ["Pending", "Waiting", "Queued", "Running", "Reviewing"]
/** States that park a Run for a person with no fiber: the start approval and the pull-request gate. */
type Parked = Waiting | Reviewing
const PARKED_TAGS: ReadonlyArray<Parked["_tag"]> = ["Waiting", "Reviewing"]
export const UNSTARTED_TAGS: ReadonlyArray<Unstarted["_tag"]> = ["Pending", "Waiting", "Queued"]
const STARTABLE_TAGS: ReadonlyArray<Startable["_tag"]> = ["Pending", "Queued"]

export const isOpen = (state: RunState): state is Open => (OPEN_TAGS as ReadonlyArray<string>).includes(state._tag)
export const isUnstarted = (state: RunState): state is Unstarted =>
  (UNSTARTED_TAGS as ReadonlyArray<string>).includes(state._tag)
export const isParked = (state: RunState): state is Parked => (PARKED_TAGS as ReadonlyArray<string>).includes(state._tag)
export const isStartable = (state: RunState): state is Startable =>
  (STARTABLE_TAGS as ReadonlyArray<string>).includes(state._tag)

/** Parks a pending run on its loop's approval gate. */
export const awaitApproval = (_state: Pending): Waiting => new Waiting()

/** Returns the approved state; the Run still waits for a Worker slot before execution. */
export const approve = (_state: Waiting): Queued => new Queued()

/** Returns the running state for a first Attempt after any required approval has been granted. */
export const start = (_state: Startable): Running => new Running()

/** Closes the run after a successful attempt. */
export const succeed = (_state: Running): Succeeded => new Succeeded()

/** Closes the run after a failed attempt when no auto-retry applies; `shouldAutoRetry` decides that. */
export const fail = (_state: Running): Failed => new Failed()

/** Parks a Run whose Attempt passed verify at the pull-request gate; nothing is pushed until Approve PR. */
export const holdForReview = (_state: Running): Reviewing => new Reviewing()

/** Approve PR: the kept work goes on to push and pull request, in a new Attempt that runs no agent. */
export const approvePullRequest = (_state: Reviewing): Running => new Running()

/** Request changes: a new Attempt gives the reviewer's text to the agent, then verify, then the gate again. */
export const requestChanges = (_state: Reviewing): Running => new Running()

/** Returns the reopened state for operator retry; attempt N+1 belongs to the same Run and Step. */
export const retry = (_state: Failed): Running => new Running()

/** Cancels from any open state. */
export const cancelByOperator = (_state: Open): Canceled => new Canceled({ reason: new OperatorCanceled() })

/**
 * Cancels an unstarted run because a newer Event for the same Item replaced it.
 * A running attempt always finishes and the newer state is judged when it ends.
 */
export const supersede = (_state: Unstarted, by: EventId): Canceled =>
  new Canceled({ reason: new Superseded({ by }) })

/** Cancels an unstarted run because its Item stopped matching the loop's trigger. */
export const revoke = (_state: Unstarted): Canceled => new Canceled({ reason: new Revoked() })

/** Cancels a run nobody approved (at the start or at the pull-request gate) within the Loop's `approval_timeout`. */
export const expireApproval = (_state: Parked, afterMinutes: number): Canceled =>
  new Canceled({ reason: new ApprovalTimedOut({ afterMinutes }) })
