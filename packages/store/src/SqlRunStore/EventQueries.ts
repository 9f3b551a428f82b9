import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { Submission } from "@usine/core/event/Submission"
import type { EventId } from "@usine/core/ids/EventId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import type { QueuedEvent, StrandedPair } from "../RunClaims"
import { OPEN_STATES_SQL } from "./RunQueries"
import { findOneByKey } from "../findByKey"

/** Where an Event stands: `recorded` only inside the claiming transaction. */
const EventStatus = Schema.Literal("recorded", "claimed", "queued", "ignored", "blocked")
type EventStatus = typeof EventStatus.Type

const SubmissionJson = Schema.parseJson(Submission)

const StoredEvent = Schema.transform(
  Schema.Struct({ status: EventStatus, submission_json: SubmissionJson, recorded_at: Schema.Number }),
  Schema.Struct({ status: EventStatus, submission: Schema.typeSchema(Submission), recordedAt: Schema.Number }),
  {
    strict: true,
    decode: (row) => ({ status: row.status, submission: row.submission_json, recordedAt: row.recorded_at }),
    encode: (event) => ({ status: event.status, submission_json: event.submission, recorded_at: event.recordedAt })
  }
)
type StoredEvent = typeof StoredEvent.Type

const toQueued = (event: StoredEvent): QueuedEvent => ({
  eventId: event.submission.eventId,
  loop: event.submission.loop,
  itemKey: event.submission.itemKey,
  receivedAt: event.submission.receivedAt,
  submission: event.submission
})

/**
 * Reads and writes of `usine_events` and `usine_ignored_events`; SQL failures are defects. `written` is told every
 * Event whose row or ignore row is written, before the write.
 */
export const makeEventQueries = (sql: SqlClient.SqlClient, written: (eventId: string) => void = () => {}) => {
  const find = findOneByKey(StoredEvent, (id) =>
    sql`SELECT status, submission_json, recorded_at FROM usine_events WHERE id = ${id}`
  )
  // Oldest first; the rowid breaks ties between Events received in the same millisecond.
  const queuedOf = SqlSchema.findAll({
    Request: Schema.Struct({ loop: Schema.String, itemKey: Schema.String }),
    Result: StoredEvent,
    execute: ({ itemKey, loop }) =>
      sql`SELECT status, submission_json, recorded_at FROM usine_events
          WHERE loop = ${loop} AND item_key = ${itemKey} AND status = 'queued' ORDER BY received_at, rowid`
  })

  // The partial index on queued Events, then the open-Run index per pair: cost follows the queued Events, not all.
  const stranded = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ loop: Schema.String, item_key: Schema.String }),
    execute: () =>
      sql`SELECT DISTINCT e.loop, e.item_key FROM usine_events e
          WHERE e.status = 'queued' AND NOT EXISTS (
            SELECT 1 FROM usine_runs r
            WHERE r.loop = e.loop AND r.item_key = e.item_key AND r.state IN ${sql.literal(OPEN_STATES_SQL)})
          ORDER BY e.loop, e.item_key`
  })

  const setStatus = (eventId: EventId, status: EventStatus) =>
    Effect.suspend(() => {
      written(eventId)
      return sql`UPDATE usine_events SET status = ${status} WHERE id = ${eventId}`
    })

  return {
    /** Inserts the Event unless its dedup key is known; true when it is new. */
    insert: (submission: Submission, now: number) =>
      Schema.encode(SubmissionJson)(submission).pipe(
        Effect.flatMap((json) =>
          sql`INSERT INTO usine_events
              (id, loop, item_key, repository, number, generation, content_hash, submission_json, received_at,
               recorded_at, status)
              VALUES (${submission.eventId}, ${submission.loop}, ${submission.itemKey}, ${submission.repository},
               ${submission.number ?? null}, ${submission.generation}, ${submission.contentHash ?? null}, ${json},
               ${submission.receivedAt}, ${now}, 'recorded')
              ON CONFLICT DO NOTHING RETURNING id`
        ),
        Effect.map((rows) => rows.length === 1)
      ),
    find: (eventId: EventId) => find(eventId),
    setStatus,
    /** Marks the Event ignored for good, keeping the first reason given. */
    ignore: (eventId: EventId, reason: string, now: number) =>
      Effect.suspend(() => {
        written(eventId)
        return sql`INSERT INTO usine_ignored_events (event_id, reason, at) VALUES (${eventId}, ${reason}, ${now})
          ON CONFLICT DO NOTHING`
      }).pipe(
        Effect.zipRight(setStatus(eventId, "ignored"))
      ),
    ignoredReason: (eventId: EventId) =>
      sql<{ reason: string }>`SELECT reason FROM usine_ignored_events WHERE event_id = ${eventId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.reason))
      ),
    /** Loops and Items with a queued Event and no open Run: nothing will take the Event up unless asked. */
    stranded: stranded(undefined).pipe(
      Effect.map((rows) => rows.map((row): StrandedPair => ({ loop: row.loop, itemKey: ItemKey(row.item_key) })))
    ),
    /** Queued Events of a Loop and Item, oldest first. */
    queuedOf: (loop: string, itemKey: ItemKey) =>
      queuedOf({ loop, itemKey }).pipe(Effect.map((events) => events.map(toQueued)))
  }
}

