/**
 * Checked by `tsc` in the test command, never run: every legal (state, transition) pair compiles and every
 * illegal one is an error, so a transition that admits a wrong source state breaks the build.
 */
import { EventId } from "../src/ids/EventId"
import {
  approve,
  approvePullRequest,
  awaitApproval,
  cancelByOperator,
  Canceled,
  expireApproval,
  fail,
  Failed,
  holdForReview,
  OperatorCanceled,
  Pending,
  Queued,
  requestChanges,
  retry,
  Reviewing,
  revoke,
  Running,
  start,
  succeed,
  Succeeded,
  supersede,
  Waiting
} from "../src/run/state"

const by = EventId("[\"loop\",\"o/r\",1,\"h\"]")
const pending = new Pending()
const waiting = new Waiting()
const queued = new Queued()
const running = new Running()
const reviewing = new Reviewing()
const succeeded = new Succeeded()
const failed = new Failed()
const canceled = new Canceled({ reason: new OperatorCanceled() })

// awaitApproval: legal from Pending
export const awaitApprovalFromPending = awaitApproval(pending)
// @ts-expect-error awaitApproval from Waiting is illegal
awaitApproval(waiting)
// @ts-expect-error awaitApproval from Queued is illegal
awaitApproval(queued)
// @ts-expect-error awaitApproval from Running is illegal
awaitApproval(running)
// @ts-expect-error awaitApproval from Reviewing is illegal
awaitApproval(reviewing)
// @ts-expect-error awaitApproval from Succeeded is illegal
awaitApproval(succeeded)
// @ts-expect-error awaitApproval from Failed is illegal
awaitApproval(failed)
// @ts-expect-error awaitApproval from Canceled is illegal
awaitApproval(canceled)

// approve: legal from Waiting
// @ts-expect-error approve from Pending is illegal
approve(pending)
export const approveFromWaiting = approve(waiting)
// @ts-expect-error approve from Queued is illegal
approve(queued)
// @ts-expect-error approve from Running is illegal
approve(running)
// @ts-expect-error approve from Reviewing is illegal
approve(reviewing)
// @ts-expect-error approve from Succeeded is illegal
approve(succeeded)
// @ts-expect-error approve from Failed is illegal
approve(failed)
// @ts-expect-error approve from Canceled is illegal
approve(canceled)

// start: legal from Pending, Queued
export const startFromPending = start(pending)
// @ts-expect-error start from Waiting is illegal
start(waiting)
export const startFromQueued = start(queued)
// @ts-expect-error start from Running is illegal
start(running)
// @ts-expect-error start from Reviewing is illegal
start(reviewing)
// @ts-expect-error start from Succeeded is illegal
start(succeeded)
// @ts-expect-error start from Failed is illegal
start(failed)
// @ts-expect-error start from Canceled is illegal
start(canceled)

// succeed: legal from Running
// @ts-expect-error succeed from Pending is illegal
succeed(pending)
// @ts-expect-error succeed from Waiting is illegal
succeed(waiting)
// @ts-expect-error succeed from Queued is illegal
succeed(queued)
export const succeedFromRunning = succeed(running)
// @ts-expect-error succeed from Reviewing is illegal
succeed(reviewing)
// @ts-expect-error succeed from Succeeded is illegal
succeed(succeeded)
// @ts-expect-error succeed from Failed is illegal
succeed(failed)
// @ts-expect-error succeed from Canceled is illegal
succeed(canceled)

// fail: legal from Running
// @ts-expect-error fail from Pending is illegal
fail(pending)
// @ts-expect-error fail from Waiting is illegal
fail(waiting)
// @ts-expect-error fail from Queued is illegal
fail(queued)
export const failFromRunning = fail(running)
// @ts-expect-error fail from Reviewing is illegal
fail(reviewing)
// @ts-expect-error fail from Succeeded is illegal
fail(succeeded)
// @ts-expect-error fail from Failed is illegal
fail(failed)
// @ts-expect-error fail from Canceled is illegal
fail(canceled)

// holdForReview: legal from Running
// @ts-expect-error holdForReview from Pending is illegal
holdForReview(pending)
// @ts-expect-error holdForReview from Waiting is illegal
holdForReview(waiting)
// @ts-expect-error holdForReview from Queued is illegal
holdForReview(queued)
export const holdForReviewFromRunning = holdForReview(running)
// @ts-expect-error holdForReview from Reviewing is illegal
holdForReview(reviewing)
// @ts-expect-error holdForReview from Succeeded is illegal
holdForReview(succeeded)
// @ts-expect-error holdForReview from Failed is illegal
holdForReview(failed)
// @ts-expect-error holdForReview from Canceled is illegal
holdForReview(canceled)

// approvePullRequest: legal from Reviewing
// @ts-expect-error approvePullRequest from Pending is illegal
approvePullRequest(pending)
// @ts-expect-error approvePullRequest from Waiting is illegal
approvePullRequest(waiting)
// @ts-expect-error approvePullRequest from Queued is illegal
approvePullRequest(queued)
// @ts-expect-error approvePullRequest from Running is illegal
approvePullRequest(running)
export const approvePullRequestFromReviewing = approvePullRequest(reviewing)
// @ts-expect-error approvePullRequest from Succeeded is illegal
approvePullRequest(succeeded)
// @ts-expect-error approvePullRequest from Failed is illegal
approvePullRequest(failed)
// @ts-expect-error approvePullRequest from Canceled is illegal
approvePullRequest(canceled)

// requestChanges: legal from Reviewing
// @ts-expect-error requestChanges from Pending is illegal
requestChanges(pending)
// @ts-expect-error requestChanges from Waiting is illegal
requestChanges(waiting)
// @ts-expect-error requestChanges from Queued is illegal
requestChanges(queued)
// @ts-expect-error requestChanges from Running is illegal
requestChanges(running)
export const requestChangesFromReviewing = requestChanges(reviewing)
// @ts-expect-error requestChanges from Succeeded is illegal
requestChanges(succeeded)
// @ts-expect-error requestChanges from Failed is illegal
requestChanges(failed)
// @ts-expect-error requestChanges from Canceled is illegal
requestChanges(canceled)

// retry: legal from Failed
// @ts-expect-error retry from Pending is illegal
retry(pending)
// @ts-expect-error retry from Waiting is illegal
retry(waiting)
// @ts-expect-error retry from Queued is illegal
retry(queued)
// @ts-expect-error retry from Running is illegal
retry(running)
// @ts-expect-error retry from Reviewing is illegal
retry(reviewing)
// @ts-expect-error retry from Succeeded is illegal
retry(succeeded)
export const retryFromFailed = retry(failed)
// @ts-expect-error retry from Canceled is illegal
retry(canceled)

// cancelByOperator: legal from Pending, Waiting, Queued, Running, Reviewing
export const cancelByOperatorFromPending = cancelByOperator(pending)
export const cancelByOperatorFromWaiting = cancelByOperator(waiting)
export const cancelByOperatorFromQueued = cancelByOperator(queued)
export const cancelByOperatorFromRunning = cancelByOperator(running)
export const cancelByOperatorFromReviewing = cancelByOperator(reviewing)
// @ts-expect-error cancelByOperator from Succeeded is illegal
cancelByOperator(succeeded)
// @ts-expect-error cancelByOperator from Failed is illegal
cancelByOperator(failed)
// @ts-expect-error cancelByOperator from Canceled is illegal
cancelByOperator(canceled)

// supersede: legal from Pending, Waiting, Queued
export const supersedeFromPending = supersede(pending, by)
export const supersedeFromWaiting = supersede(waiting, by)
export const supersedeFromQueued = supersede(queued, by)
// @ts-expect-error supersede from Running is illegal
supersede(running, by)
// @ts-expect-error supersede from Reviewing is illegal
supersede(reviewing, by)
// @ts-expect-error supersede from Succeeded is illegal
supersede(succeeded, by)
// @ts-expect-error supersede from Failed is illegal
supersede(failed, by)
// @ts-expect-error supersede from Canceled is illegal
supersede(canceled, by)

// revoke: legal from Pending, Waiting, Queued
export const revokeFromPending = revoke(pending)
export const revokeFromWaiting = revoke(waiting)
export const revokeFromQueued = revoke(queued)
// @ts-expect-error revoke from Running is illegal
revoke(running)
// @ts-expect-error revoke from Reviewing is illegal
revoke(reviewing)
// @ts-expect-error revoke from Succeeded is illegal
revoke(succeeded)
// @ts-expect-error revoke from Failed is illegal
revoke(failed)
// @ts-expect-error revoke from Canceled is illegal
revoke(canceled)

// expireApproval: legal from Waiting, Reviewing
// @ts-expect-error expireApproval from Pending is illegal
expireApproval(pending, 30)
export const expireApprovalFromWaiting = expireApproval(waiting, 30)
// @ts-expect-error expireApproval from Queued is illegal
expireApproval(queued, 30)
// @ts-expect-error expireApproval from Running is illegal
expireApproval(running, 30)
export const expireApprovalFromReviewing = expireApproval(reviewing, 30)
// @ts-expect-error expireApproval from Succeeded is illegal
expireApproval(succeeded, 30)
// @ts-expect-error expireApproval from Failed is illegal
expireApproval(failed, 30)
// @ts-expect-error expireApproval from Canceled is illegal
expireApproval(canceled, 30)
