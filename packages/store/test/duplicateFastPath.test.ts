import { assert, describe, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import type { EventId } from "@usine/core/ids/EventId"
import * as Sql from "@usine/store/Sql"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { finalOutcomeOf } from "@usine/store/SqlRunStore/DuplicateCheck"
import { begin, openedRun, submission, testLedger } from "./fixtures/testLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, sqlite } from "@usine/testkit/ledgerEngines"
import { runLedger } from "@usine/testkit/runLedger"

/**
 * Moves with every write: on SQLite the rows the ledger's own connection has written (even a no-op UPDATE counts); on
 * PostgreSQL the cluster's next transaction id, which only a transaction that writes takes.
 */
const totalChanges = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.onDialectOrElse({
    pg: () => sql<{ n: number }>`SELECT txid_snapshot_xmax(txid_current_snapshot()) AS n`,
    orElse: () => sql<{ n: number }>`SELECT total_changes() AS n`
  }).pipe(Effect.map((rows) => Number(rows[0]!.n)), Effect.orDie)
)

// Fresh: a layer is memoized by reference, and `SqlRunStore.layer` is also in the test ledger.
const InMemory = Layer.fresh(SqlRunStore.layer).pipe(Layer.provideMerge(Sql.layerUnlocked(":memory:")), Layer.orDie)

const suite = (ledger: typeof InMemory) => {
    layer(ledger)("a duplicate of a claimed Event", (it) => {
      it.effect("is answered with its Run without writing, as the transaction would answer it", () =>
        Effect.gen(function* () {
          const store = yield* runLedger
          const run = openedRun(yield* store.recordAndClaim(submission({})))
          yield* store.cancel(run.id)
          const before = yield* totalChanges
          const again = yield* store.recordAndClaim(submission({ receivedAt: 9_999 }))
          assert.strictEqual(yield* totalChanges, before, "no row written")
          assert.deepStrictEqual(again, yield* store.claimQueued(run.eventId))
          assert.strictEqual(again._tag === "Claimed" && again.run.state._tag, "Canceled")
        }))
    })

    layer(ledger)("a duplicate of an ignored Event", (it) => {
      it.effect("is Ignored with its reason without writing", () =>
        Effect.gen(function* () {
          const store = yield* runLedger
          const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
          yield* begin(running.id)
          assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "b" })))._tag, "Queued")
          yield* store.revokeQueued("start-dev", running.itemKey, "if: no longer holds")
          const before = yield* totalChanges
          const again = yield* store.recordAndClaim(submission({ hash: "b" }))
          assert.strictEqual(yield* totalChanges, before)
          assert.deepStrictEqual(again, { _tag: "Ignored", eventId: submission({ hash: "b" }).eventId, reason: "if: no longer holds" })
        }))
    })

    layer(ledger)("a duplicate whose outcome may still change", (it) => {
      it.effect("goes through the transaction: a queued Event opens its Run once the Item is free", () =>
        Effect.gen(function* () {
          const store = yield* runLedger
          const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
          yield* begin(running.id)
          assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "b" })))._tag, "Queued")
          const before = yield* totalChanges
          assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "b" })))._tag, "Queued")
          assert.isAbove(yield* totalChanges, before, "the transaction ran")
          yield* store.cancel(running.id)
          const opened = yield* store.recordAndClaim(submission({ hash: "b" }))
          assert.isTrue(opened._tag === "Claimed" && opened.opened)
        }))
    })
}

describe("duplicate fast path on a SQLite ledger file (query-only reader, SQLite only)", () => suite(testLedger(sqlite)))
// SQLite in memory has no file for a reader: it reads through the client, as PostgreSQL always does.
describeEngines("duplicate fast path through the client", (engine) =>
  suite(engine.name === "sqlite" ? InMemory : testLedger(engine)))

describe("finalOutcomeOf", () => {
  const eventId = "[\"e\"]" as EventId
  const noRun = {
    id: null, event_id: null, loop: null, item_key: null, repository: null, number: null, generation: null,
    state: null, state_json: null, version: null, task: null, agent: null, model: null, approval_required: null,
    received_at: null, created_at: null, updated_at: null, resolved_failure_attempt_id: null, head_sha: null
  }
  it("leaves unknown, recorded, queued and blocked Events to the transaction", () => {
    assert.isTrue(Option.isNone(finalOutcomeOf(eventId, undefined)))
    for (const status of ["recorded", "queued", "blocked", "claimed"]) {
      assert.isTrue(Option.isNone(finalOutcomeOf(eventId, { event_status: status, ignored_reason: null, ...noRun })))
    }
  })
  it("answers an ignored Event with its reason whatever its status says", () => {
    assert.deepStrictEqual(
      finalOutcomeOf(eventId, { event_status: "queued", ignored_reason: "revoked", ...noRun }),
      Option.some({ _tag: "Ignored", eventId, reason: "revoked" } as const)
    )
  })
})
