import { Schema } from "effect"
import { Submission } from "@usine/core/event/Submission"
import { runIdOf } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Pending } from "@usine/core/run/state"
import { RunFromRow } from "@usine/store/SqlRunStore/RunRow"
import type { BareSqlite } from "./BareSqlite"

const encodeSubmission = Schema.encodeSync(Schema.parseJson(Submission))
const encodeRun = Schema.encodeSync(RunFromRow)

/**
 * The rows a claim that opens a Run leaves (the Event as claimed, the Pending Run, its opening transition), encoded
 * ahead of time and written by prepared statements, one transaction per Event: what SQLite alone costs, our floor.
 */
export const bareClaims = (db: BareSqlite, submissions: ReadonlyArray<Submission>, now: number) => {
  const rows = submissions.map((s) => ({
    event: [s.eventId, s.loop, s.itemKey, s.repository, s.number ?? null, s.generation, s.contentHash ?? null,
      encodeSubmission(s), s.receivedAt, now] as const,
    run: encodeRun(new Run({
      id: runIdOf(s.eventId), eventId: s.eventId, loop: s.loop, itemKey: s.itemKey, repository: s.repository,
      ...(s.number === undefined ? {} : { number: s.number }), generation: s.generation, state: new Pending(),
      version: 1, task: s.task, agent: s.agent, approvalRequired: s.approvalRequired, receivedAt: s.receivedAt,
      createdAt: now, updatedAt: now
    }, true)),
    reason: `opened for Event ${s.eventId}`
  }))
  const event = db.prepare(`INSERT OR IGNORE INTO usine_events (id, loop, item_key, repository, number, generation,
    content_hash, submission_json, received_at, recorded_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'claimed')`)
  const run = db.prepare(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation, state,
    state_json, version, task, agent, model, approval_required, received_at, created_at, updated_at,
    resolved_failure_attempt_id) VALUES (@id, @event_id, @loop, @item_key, @repository, @number, @generation, @state,
    @state_json, @version, @task, @agent, @model, @approval_required, @received_at, @created_at, @updated_at,
    @resolved_failure_attempt_id)`)
  const transition = db.prepare(
    "INSERT INTO usine_transitions (run_id, from_state, to_state, actor, reason, at) VALUES (?, NULL, 'Pending', 'trigger', ?, ?)"
  )
  const write = (k: number) => {
    const row = rows[k]!
    event.run(...row.event)
    run.run(row.run)
    transition.run(row.run.id, row.reason, now)
  }
  const claim = db.transaction(write)
  const known = db.prepare("SELECT 1 FROM usine_events WHERE id = ?")
  let duplicates = 0
  const duplicate = db.transaction((k: number) => {
    if (event.run(...rows[k]!.event).changes === 0) duplicates++
  })
  const claimMany = db.transaction((from: number, to: number) => {
    for (let k = from; k < to; k++) write(k)
  })
  return {
    /** Writes the claims of submissions [from, to). */
    claim: (from: number, to: number) => {
      for (let k = from; k < to; k++) claim(k)
    },
    /** The same rows, `perTransaction` Events to a transaction: what batching would buy. */
    claimBatched: (from: number, to: number, perTransaction: number) => {
      for (let k = from; k < to; k += perTransaction) claimMany(k, Math.min(to, k + perTransaction))
    },
    /** Offers every Event again, one transaction each, as the store's first statement does; counts the rejections. */
    duplicate: (): number => {
      duplicates = 0
      for (let k = 0; k < rows.length; k++) duplicate(k)
      return duplicates
    },
    /** Asks whether each Event is known, outside any transaction: what a read-only dedup check would cost. */
    lookup: (): number => rows.reduce((found, row) => found + (known.get(row.event[0]) === undefined ? 0 : 1), 0)
  }
}
