import { assert } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, TestClock } from "effect"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import { TriggerRefusals } from "@usine/store/TriggerRefusals"
import type { RunId } from "@usine/core/ids/RunId"
import { begin, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"

const Ledger = (engine: LedgerEngine) => SqlTriggerRefusals.layer.pipe(Layer.provideMerge(testLedger(engine)))

/** The plan of the Board's refusal query: on PostgreSQL with sequential scans off, so a usable index must show. */
const refusalPlan = Effect.flatMap(SqlClient.SqlClient, (sql) => {
  const query = "SELECT event_id FROM usine_ignored_events WHERE event_id LIKE 'trust-refused:%' ORDER BY at DESC"
  return sql.onDialectOrElse({
    pg: () =>
      sql.withTransaction(
        sql`SET LOCAL enable_seqscan = off`.pipe(Effect.zipRight(sql.unsafe<Record<string, string>>(`EXPLAIN ${query}`)))
      ).pipe(Effect.map((rows) => rows.map((row) => Object.values(row).join(" ")).join("\n"))),
    orElse: () =>
      sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`).pipe(Effect.map((rows) => rows.map((p) => p.detail).join("\n")))
  })
})

describeEngines("TriggerRefusals", (engine) => {
  layer(Ledger(engine))("on the ledger", (it) => {
    it.effect("records a refusal once, as an ignored Event with its reason, newest first for the Board", () =>
      Effect.gen(function* () {
        const refusals = yield* TriggerRefusals
        const sql = yield* SqlClient.SqlClient
        const first = submission({ number: 1 })
        yield* TestClock.adjust(1_000)
        assert.isTrue(yield* refusals.record(first, "author eve is a bot not listed in trusted_authors"))
        assert.isFalse(yield* refusals.record(first, "a later reason"), "the same refusal again is a no-op")
        yield* TestClock.adjust(1_000)
        assert.isTrue(yield* refusals.record(submission({ number: 2 }), "label ready was added by mallory"))

        const listed = yield* refusals.recent(10)
        assert.deepStrictEqual(listed.map((r) => [r.number, r.reason, r.at]), [
          [2, "label ready was added by mallory", 2_000],
          [1, "author eve is a bot not listed in trusted_authors", 1_000]
        ])
        assert.strictEqual(listed[1]!.eventId, `trust-refused:${first.eventId}`)
        assert.deepStrictEqual([listed[1]!.loop, listed[1]!.itemKey, listed[1]!.repository], [first.loop, first.itemKey, first.repository])
        assert.strictEqual((yield* refusals.recent(1)).length, 1)
        assert.deepStrictEqual([...(yield* refusals.countsByLoop)], [[first.loop, 2]])

        const rows = yield* sql<{ status: string }>`SELECT status FROM usine_events WHERE id = ${listed[1]!.eventId}`
        assert.deepStrictEqual(rows.map((r) => r.status), ["ignored"])
        assert.include(yield* refusalPlan, "usine_ignored_events_refused")
      }))

    it.effect("a refusal never blocks the same content from opening a Run once trusted, nor lists other ignored Events", () =>
      Effect.gen(function* () {
        const refusals = yield* TriggerRefusals
        const store = yield* runLedger
        const refused = submission({ number: 3 })
        yield* refusals.record(refused, "author eve has read access")
        const claim = yield* store.recordAndClaim(refused)
        assert.isTrue(claim._tag === "Claimed" && claim.opened, "the same dedup key still opens its Run")
        yield* begin((claim as { run: { id: RunId } }).run.id)
        const queued = yield* store.recordAndClaim(submission({ number: 3, hash: "h2" }))
        assert.strictEqual(queued._tag, "Queued")
        assert.strictEqual(yield* store.revokeQueued(refused.loop, refused.itemKey, "if: no longer holds"), 1)
        const ofItem = (yield* refusals.recent(10)).filter((r) => r.number === 3)
        assert.deepStrictEqual(ofItem.map((r) => r.reason), ["author eve has read access"], "only refusals are listed")
      }))
  })
})
