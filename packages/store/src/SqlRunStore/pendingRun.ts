import type { Submission } from "@usine/core/event/Submission"
import { runIdOf } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Pending } from "@usine/core/run/state"

/** Every opened Run starts in the same state value: an empty tagged class, immutable. */
const PENDING = new Pending()

/**
 * The Pending Run a claim opens for `submission` in `generation`. Valid by construction (typed fields of a decoded
 * Submission), so the constructor's validation (~100 µs) is skipped.
 */
export const pendingRunOf = (submission: Submission, generation: number, now: number): Run =>
  new Run({
    id: runIdOf(submission.eventId),
    eventId: submission.eventId,
    loop: submission.loop,
    itemKey: submission.itemKey,
    repository: submission.repository,
    ...(submission.number === undefined ? {} : { number: submission.number }),
    generation,
    state: PENDING,
    version: 1,
    task: submission.task,
    agent: submission.agent,
    ...(submission.model === undefined ? {} : { model: submission.model }),
    approvalRequired: submission.approvalRequired,
    ...(submission.headSha === undefined ? {} : { headSha: submission.headSha }),
    receivedAt: submission.receivedAt,
    createdAt: now,
    updatedAt: now
  }, true)
