import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Effect, Layer, Schema } from "effect"
import { ledgerPort } from "./ledgerPort"
import { Submission } from "@usine/core/event/Submission"
import { EventId } from "@usine/core/ids/EventId"
import { refusalEventIdOf } from "@usine/core/trust/refusalEventIdOf"
import { column } from "./column"
import { TriggerRefusals } from "./TriggerRefusals"
import { UndefinedFromNull } from "./UndefinedFromNull"
import { loopItemFields } from "@usine/core/ids/loopItemFields"

const RefusedRow = Schema.Struct({
  eventId: column("id", Schema.String.pipe(Schema.fromBrand(EventId))),
  ...loopItemFields,
  itemKey: column("item_key", loopItemFields.itemKey),
  number: UndefinedFromNull(Schema.Number),
  reason: Schema.String,
  at: Schema.Number
})

const SubmissionJson = Schema.parseJson(Submission)

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const recent = SqlSchema.findAll({
    Request: Schema.Number,
    Result: RefusedRow,
    execute: (limit) =>
      sql`SELECT e.id, e.loop, e.item_key, e.repository, e.number, i.reason, i.at
          FROM usine_ignored_events i JOIN usine_events e ON e.id = i.event_id
          WHERE i.event_id LIKE 'trust-refused:%'
          ORDER BY i.at DESC, i.event_id DESC LIMIT ${limit}`
  })

  const counts = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ loop: Schema.String, count: Schema.Number }),
    execute: () =>
      sql`SELECT e.loop, count(*) AS count
          FROM usine_ignored_events i JOIN usine_events e ON e.id = i.event_id
          WHERE i.event_id LIKE 'trust-refused:%'
          GROUP BY e.loop`
  })

  const record = Effect.fn("TriggerRefusals.record")(function* (submission: Submission, reason: string) {
    const eventId = refusalEventIdOf(submission.eventId)
    const json = yield* Schema.encode(SubmissionJson)({ ...submission, eventId })
    const now = yield* Clock.currentTimeMillis
    const inserted = yield* sql`INSERT INTO usine_events
        (id, loop, item_key, repository, number, generation, content_hash, submission_json, received_at, recorded_at,
         status)
        VALUES (${eventId}, ${submission.loop}, ${submission.itemKey}, ${submission.repository},
         ${submission.number ?? null}, ${submission.generation}, ${submission.contentHash ?? null}, ${json},
         ${submission.receivedAt}, ${now}, 'ignored')
        ON CONFLICT DO NOTHING RETURNING id`
    if (inserted.length === 0) return false
    yield* sql`INSERT INTO usine_ignored_events (event_id, reason, at) VALUES (${eventId}, ${reason}, ${now})`
    return true
  }, (effect) => sql.withTransaction(effect))

  return ledgerPort(TriggerRefusals, {
    record,
    recent: (limit: number) => recent(Math.max(0, Math.trunc(limit))),
    countsByLoop: counts(undefined).pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.loop, row.count] as const)))
    )
  })
})

/** Refused triggers on the SQLite ledger; needs `Sql.layer` (or `Sql.layerUnlocked`) below it. */
export const layer: Layer.Layer<TriggerRefusals, never, SqlClient.SqlClient> = Layer.effect(TriggerRefusals, make)
