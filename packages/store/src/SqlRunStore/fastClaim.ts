import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import type { LedgerConnectionShape } from "../LedgerConnection"
import type { ClaimResult } from "../RunClaims"
import { pendingRunOf } from "./pendingRun"
import { duplicateAnswer, type RecentClaims } from "./RecentClaims"
import { OPEN_STATES_SQL } from "./RunQueries"
import { rowOfRun } from "./RunRow"

/**
 * The Submission's JSON as `Schema.parseJson(Submission)` encodes it (the encoded and decoded forms are the same:
 * strings, numbers, a boolean), key for key in the schema's order, absent optional fields left out, without the
 * Schema pass.
 */
const submissionJson = (s: Submission): string =>
  JSON.stringify({
    eventId: s.eventId,
    loop: s.loop,
    itemKey: s.itemKey,
    repository: s.repository,
    number: s.number,
    generation: s.generation,
    contentHash: s.contentHash,
    headSha: s.headSha,
    task: s.task,
    agent: s.agent,
    model: s.model,
    approvalRequired: s.approvalRequired,
    maxCycles: s.maxCycles,
    receivedAt: s.receivedAt
  })

/** What the claim needs to know before it writes, in one read: the budget, the open Run, the reservations, the queue. */
const CONTEXT_SQL = `SELECT b.generation AS generation, b.ask_json AS ask_json,
    (SELECT count(*) FROM usine_events q WHERE q.loop = @loop AND q.item_key = @item_key AND q.status = 'queued') AS queued,
    (SELECT count(*) FROM usine_runs o WHERE o.loop = @loop AND o.item_key = @item_key AND o.state IN ${OPEN_STATES_SQL}) AS open,
    (SELECT count(*) FROM usine_runs r WHERE r.loop = @loop AND r.item_key = @item_key AND r.generation = coalesce(b.generation, 0)
      AND (r.state <> 'Canceled' OR EXISTS (SELECT 1 FROM usine_attempts a WHERE a.run_id = r.id))) AS reserved
  FROM (SELECT 1) LEFT JOIN usine_item_cycle_budgets b ON b.item_key = @item_key`

interface ClaimContext {
  readonly generation: number | null
  readonly ask_json: string | null
  readonly queued: number
  readonly open: number
  readonly reserved: number
}

/**
 * The common claim as plain prepared calls on the client's own connection, in one transaction
 * (ADR 0080): a new Event of a pair with no open Run, no queued Event, no open Ask and cycles left opens a Pending
 * Run, the same rows as the general claim writes. Anything else rolls back and is none: the general claim's own
 * transaction settles it.
 */
export const makeFastClaim = (db: LedgerConnectionShape, recent: RecentClaims) => {
  const insertEvent = db.prepare(`INSERT INTO usine_events (id, loop, item_key, repository, number,
    generation, content_hash, submission_json, received_at, recorded_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'claimed')
    ON CONFLICT DO NOTHING`)
  const context = db.prepare(CONTEXT_SQL)
  const insertRun = db.prepare(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation,
    state, state_json, version, task, agent, model, approval_required, received_at, created_at, updated_at,
    resolved_failure_attempt_id, head_sha) VALUES (@id, @event_id, @loop, @item_key, @repository, @number, @generation,
    @state, @state_json, @version, @task, @agent, @model, @approval_required, @received_at, @created_at, @updated_at,
    @resolved_failure_attempt_id, @head_sha)`)
  const insertTransition = db.prepare(
    "INSERT INTO usine_transitions (run_id, from_state, to_state, actor, reason, at) VALUES (?, NULL, ?, 'trigger', ?, ?)"
  )

  const claim = (s: Submission, now: number): Option.Option<ClaimResult> => {
    const fresh = insertEvent.run(s.eventId, s.loop, s.itemKey, s.repository, s.number ?? null, s.generation,
      s.contentHash ?? null, submissionJson(s), s.receivedAt, now).changes === 1
    if (!fresh) return Option.none()
    const c = context.get({ loop: s.loop, item_key: s.itemKey }) as ClaimContext
    const generation = c.generation ?? 0
    const blocked = s.maxCycles !== undefined && c.reserved >= s.maxCycles
    if (c.ask_json !== null || s.generation < generation || c.open > 0 || c.queued > 0 || blocked) return Option.none()
    const run = pendingRunOf(s, generation, now)
    insertRun.run(rowOfRun(run))
    insertTransition.run(run.id, run.state._tag, `opened for Event ${s.eventId}`, now)
    return Option.some({ _tag: "Claimed", run, opened: true, superseded: Option.none() })
  }
  // The epoch is read inside the transaction's synchronous step, so a write that follows its commit is seen.
  return (submission: Submission): Effect.Effect<Option.Option<ClaimResult>, SqlError> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.map(
        db.transact(() => Option.map(claim(submission, now), (result) => ({ result, readAt: recent.epoch() }))),
        Option.map(({ readAt, result }) => {
          if (result._tag === "Claimed") recent.remember(submission.eventId, duplicateAnswer(result.run), readAt)
          return result
        })
      ))
}

export type FastClaim = ReturnType<typeof makeFastClaim>
