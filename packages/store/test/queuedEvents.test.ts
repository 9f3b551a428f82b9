import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { EventId } from "@usine/core/ids/EventId"
import { begin, openedRun, submission, succeed, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

const succeededOutcome = new AttemptSucceeded({ result: { commits: [] } })

describeEngines("queued Events", (engine) => {
  layer(testLedger(engine))("claimQueued", (it) => {
    it.effect("waits while the blocking Run runs, then opens the newest and consumes the older ones", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        const started = yield* begin(running.id)
        for (const [hash, receivedAt] of [["b", 2_000], ["c", 3_000]] as const) {
          assert.strictEqual((yield* store.recordAndClaim(submission({ hash, receivedAt })))._tag, "Queued")
        }
        const newest = Option.getOrThrow(yield* store.newestQueued("start-dev", running.itemKey))
        assert.strictEqual(newest.eventId, submission({ hash: "c" }).eventId)
        assert.strictEqual(newest.submission.task, submission({ hash: "c" }).task)
        assert.deepStrictEqual(yield* store.claimQueued(newest.eventId), {
          _tag: "Queued",
          eventId: newest.eventId,
          behind: running.id
        })

        if (started._tag === "Started") yield* store.finishAttempt(started.attempt.id, succeededOutcome)
        const claimed = yield* store.claimQueued(newest.eventId)
        const run = openedRun(claimed)
        assert.isTrue(claimed._tag === "Claimed" && claimed.opened)
        assert.strictEqual(run.eventId, newest.eventId)
        assert.strictEqual((yield* store.transitions(run.id))[0]?.actor, "engine")
        assert.isTrue(Option.isNone(yield* store.newestQueued("start-dev", running.itemKey)))
        const older = yield* store.recordAndClaim(submission({ hash: "b", receivedAt: 2_000 }))
        assert.strictEqual(older._tag, "Ignored")
        if (older._tag === "Ignored") assert.include(older.reason, "consumed")
      }))

    it.effect("is Ignored for an Event the ledger does not hold", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const result = yield* store.claimQueued(EventId("never-seen"))
        assert.strictEqual(result._tag, "Ignored")
      }))
  })

  layer(testLedger(engine))("claimQueued and the cycle budget", (it) => {
    it.effect("goes through the same budget check", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a", maxCycles: 1 })))
        yield* begin(running.id)
        yield* store.recordAndClaim(submission({ hash: "b", maxCycles: 1 }))
        yield* store.cancel(running.id)
        const result = yield* store.claimQueued(submission({ hash: "b" }).eventId)
        assert.strictEqual(result._tag, "CycleBlocked")
        assert.deepStrictEqual(yield* store.openRuns, [])
      }))
  })

  layer(testLedger(engine))("revoke", (it) => {
    it.effect("cancels the Loop's unstarted Run as Revoked and ignores its queued Events, nothing else", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const pending = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        const other = openedRun(yield* store.recordAndClaim(submission({ loop: "review", hash: "a" })))
        assert.deepStrictEqual(yield* store.revoke("start-dev", pending.itemKey), [pending.id])
        const revoked = yield* store.getRun(pending.id)
        assert.deepStrictEqual(revoked.state._tag === "Canceled" && revoked.state.reason._tag, "Revoked")
        assert.deepStrictEqual((yield* store.transitions(pending.id)).at(-1)?.actor, "trigger")
        assert.strictEqual((yield* store.getRun(other.id)).state._tag, "Pending")

        const running = openedRun(yield* store.recordAndClaim(submission({ hash: "b" })))
        yield* begin(running.id)
        assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "c" })))._tag, "Queued")
        assert.deepStrictEqual(yield* store.revoke("start-dev", pending.itemKey), [])
        assert.strictEqual((yield* store.getRun(running.id)).state._tag, "Running")
        assert.isTrue(Option.isNone(yield* store.newestQueued("start-dev", pending.itemKey)))
        assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "c" })))._tag, "Ignored")
      }))

    it.effect("revokeQueued ignores the queued Events with the reason given and counts them", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const running = openedRun(yield* store.recordAndClaim(submission({ number: 9, hash: "a" })))
        yield* begin(running.id)
        yield* store.recordAndClaim(submission({ number: 9, hash: "b" }))
        yield* store.recordAndClaim(submission({ number: 9, hash: "c" }))
        assert.strictEqual(yield* store.revokeQueued("start-dev", running.itemKey, "trigger false"), 2)
        assert.strictEqual(yield* store.revokeQueued("start-dev", running.itemKey, "trigger false"), 0)
        yield* succeed(running.id)
        const result = yield* store.claimQueued(submission({ number: 9, hash: "c" }).eventId)
        assert.deepStrictEqual(result, { _tag: "Ignored", eventId: submission({ number: 9, hash: "c" }).eventId, reason: "trigger false" })
      }))
  })
})
