import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { scheduleItemKeyOf, itemKeyOf } from "@usine/core/ids/ItemKey"
import { tickEventIdOf } from "@usine/core/ids/EventId"
import { begin, openedRun, REPOSITORY, submission, succeed, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

describeEngines("RunClaims.recordAndClaim", (engine) => {
  layer(testLedger(engine))("a new Event", (it) => {
    it.effect("opens a Pending Run with its opening transition row", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const result = yield* store.recordAndClaim(submission({ receivedAt: 5 }))
        assert.strictEqual(result._tag, "Claimed")
        if (result._tag !== "Claimed") return
        assert.isTrue(result.opened)
        assert.isTrue(Option.isNone(result.superseded))
        assert.strictEqual(result.run.state._tag, "Pending")
        assert.strictEqual(result.run.version, 1)
        assert.strictEqual(result.run.generation, 0)
        assert.strictEqual(result.run.receivedAt, 5)
        const transitions = yield* store.transitions(result.run.id)
        assert.deepStrictEqual(
          transitions.map((t) => [t.from, t.to, t.actor]),
          [[undefined, "Pending", "trigger"]]
        )
        assert.deepStrictEqual(yield* store.getRun(result.run.id), result.run)
      }))
  })

  layer(testLedger(engine))("the same Event twice", (it) => {
    it.effect("yields the same Run, opened once", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const first = openedRun(yield* store.recordAndClaim(submission({})))
        const again = yield* store.recordAndClaim(submission({}))
        assert.strictEqual(again._tag, "Claimed")
        if (again._tag !== "Claimed") return
        assert.isFalse(again.opened)
        assert.strictEqual(again.run.id, first.id)
        assert.strictEqual((yield* store.openRuns).length, 1)
        assert.strictEqual((yield* store.transitions(first.id)).length, 1)
      }))
  })

  layer(testLedger(engine))("an Event whose Run exists", (it) => {
    it.effect("claims that Run whatever its state: a canceled Run's Event never opens a Run again", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = openedRun(yield* store.recordAndClaim(submission({})))
        yield* store.cancel(run.id)
        const again = yield* store.recordAndClaim(submission({}))
        assert.strictEqual(again._tag, "Claimed")
        if (again._tag !== "Claimed") return
        assert.isFalse(again.opened)
        assert.strictEqual(again.run.state._tag, "Canceled")
        assert.deepStrictEqual(yield* store.openRuns, [])
        // Even with the Item free, after a reset, and via claimQueued.
        const claimed = yield* store.claimQueued(run.eventId)
        assert.strictEqual(claimed._tag === "Claimed" && claimed.run.state._tag, "Canceled")
        assert.deepStrictEqual(yield* store.openRuns, [])
      }))
  })

  layer(testLedger(engine))("an ignored Event", (it) => {
    it.effect("is Ignored with its reason, opening nothing", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        yield* begin(running.id)
        const queued = yield* store.recordAndClaim(submission({ hash: "b" }))
        assert.strictEqual(queued._tag, "Queued")
        yield* store.revokeQueued("start-dev", running.itemKey, "if: no longer holds")
        const again = yield* store.recordAndClaim(submission({ hash: "b" }))
        assert.deepStrictEqual(again, { _tag: "Ignored", eventId: submission({ hash: "b" }).eventId, reason: "if: no longer holds" })
        assert.deepStrictEqual(yield* store.openRuns.pipe(Effect.map((runs) => runs.map((r) => r.id))), [running.id])
      }))
  })

  layer(testLedger(engine))("an Event of an older generation", (it) => {
    it.effect("is Ignored once the Item was reset past it", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const itemKey = itemKeyOf(REPOSITORY, 7)
        assert.deepStrictEqual(yield* store.resetCycleBudget(itemKey), { generation: 1 })
        const old = yield* store.recordAndClaim(submission({ generation: 0 }))
        assert.strictEqual(old._tag, "Ignored")
        if (old._tag === "Ignored") assert.include(old.reason, "old generation")
        assert.deepStrictEqual(yield* store.openRuns, [])
        const current = openedRun(yield* store.recordAndClaim(submission({ generation: 1 })))
        assert.strictEqual(current.generation, 1)
      }))
  })

  layer(testLedger(engine))("an open Running Run of the Loop and Item", (it) => {
    it.effect("queues the Event behind it and opens nothing", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const running = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        yield* begin(running.id)
        const result = yield* store.recordAndClaim(submission({ hash: "b", receivedAt: 2_000 }))
        assert.deepStrictEqual(result, { _tag: "Queued", eventId: submission({ hash: "b" }).eventId, behind: running.id })
        assert.strictEqual((yield* store.openRuns).length, 1)
        const newest = yield* store.newestQueued("start-dev", running.itemKey)
        assert.strictEqual(Option.getOrThrow(newest).eventId, submission({ hash: "b" }).eventId)
        // Another Loop on the same Item is not blocked by it.
        const other = yield* store.recordAndClaim(submission({ loop: "review", hash: "b" }))
        assert.isTrue(other._tag === "Claimed" && other.opened)
      }))
  })

  for (const gate of ["Pending", "Waiting", "Queued"] as const) {
    layer(testLedger(engine))(`an open ${gate} Run of the Loop and Item`, (it) => {
      it.effect("is superseded: Canceled by the new Event, and a new Pending Run opens", () =>
        Effect.gen(function* () {
          const store = yield* runLedger
          const old = openedRun(yield* store.recordAndClaim(submission({ hash: "a", approvalRequired: gate !== "Pending" })))
          if (gate !== "Pending") yield* store.parkForApproval(old.id)
          if (gate === "Queued") yield* store.approve(old.id)
          assert.strictEqual((yield* store.getRun(old.id)).state._tag, gate)
          const result = yield* store.recordAndClaim(submission({ hash: "b" }))
          assert.strictEqual(result._tag, "Claimed")
          if (result._tag !== "Claimed") return
          assert.isTrue(result.opened)
          assert.deepStrictEqual(result.superseded, Option.some(old.id))
          const canceled = yield* store.getRun(old.id)
          assert.strictEqual(canceled.state._tag, "Canceled")
          if (canceled.state._tag === "Canceled") {
            assert.deepStrictEqual(canceled.state.reason, { _tag: "Superseded", by: submission({ hash: "b" }).eventId })
          }
          const last = (yield* store.transitions(old.id)).at(-1)
          assert.deepStrictEqual([last?.from, last?.to, last?.actor], [gate, "Canceled", "trigger"])
          assert.deepStrictEqual((yield* store.openRuns).map((r) => r.id), [result.run.id])
        }))
    })
  }

  layer(testLedger(engine))("a closed Run of the Loop and Item", (it) => {
    it.effect("does not block: a new Run opens beside it", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const first = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        yield* succeed(first.id)
        const next = yield* store.recordAndClaim(submission({ hash: "b" }))
        assert.isTrue(next._tag === "Claimed" && next.opened && Option.isNone(next.superseded))
      }))
  })

  layer(testLedger(engine))("a used-up cycle budget", (it) => {
    it.effect("stores an Ask, returns CycleBlocked, and blocks every Loop on the Item until a reset", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        for (const hash of ["a", "b"]) {
          const run = openedRun(yield* store.recordAndClaim(submission({ hash, maxCycles: 2 })))
          yield* succeed(run.id)
        }
        const blocked = yield* store.recordAndClaim(submission({ hash: "c", maxCycles: 2 }))
        assert.strictEqual(blocked._tag, "CycleBlocked")
        if (blocked._tag !== "CycleBlocked") return
        assert.deepStrictEqual(
          { ...blocked.ask },
          { askId: blocked.ask.askId, loop: "start-dev", itemKey: itemKeyOf(REPOSITORY, 7), generation: 0, limit: 2, askedAt: 0 }
        )
        assert.deepStrictEqual(yield* store.asks, [blocked.ask])
        const otherLoop = yield* store.recordAndClaim(submission({ loop: "review", hash: "c", maxCycles: 5 }))
        assert.strictEqual(otherLoop._tag, "CycleBlocked")
        const otherItem = yield* store.recordAndClaim(submission({ number: 8, hash: "c", maxCycles: 2 }))
        assert.isTrue(otherItem._tag === "Claimed" && otherItem.opened)
        assert.deepStrictEqual(yield* store.openRuns.pipe(Effect.map((r) => r.map((run) => run.number))), [8])

        // A reset admits new Runs under the new generation; the blocked Event belongs to the old one.
        const itemKey = itemKeyOf(REPOSITORY, 7)
        assert.deepStrictEqual(yield* store.resetCycleBudget(itemKey, { askId: blocked.ask.askId }), { generation: 1 })
        assert.deepStrictEqual(yield* store.resetCycleBudget(itemKey, { askId: blocked.ask.askId }), { generation: 1 })
        assert.deepStrictEqual(yield* store.asks, [])
        assert.deepStrictEqual(yield* store.generation(itemKey), 1)
        assert.deepStrictEqual(yield* store.takeResetPending("acme/widgets"), [itemKey])
        assert.deepStrictEqual(yield* store.takeResetPending("acme/widgets"), [])
        assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "c", maxCycles: 2 })))._tag, "Ignored")
        for (const hash of ["c", "d"]) {
          const run = openedRun(yield* store.recordAndClaim(submission({ hash, generation: 1, maxCycles: 2 })))
          assert.strictEqual(run.generation, 1)
          yield* succeed(run.id)
        }
        const again = yield* store.recordAndClaim(submission({ hash: "e", generation: 1, maxCycles: 2 }))
        assert.isTrue(again._tag === "CycleBlocked" && again.ask.generation === 1)
      }))
  })

  layer(testLedger(engine))("a supersede followed by CycleBlocked", (it) => {
    it.effect("leaves the old Run Canceled and opens no new Run", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const pending = openedRun(yield* store.recordAndClaim(submission({ loop: "review", hash: "a" })))
        // start-dev uses up the Item's budget: its Ask now blocks every Loop on the Item.
        const used = openedRun(yield* store.recordAndClaim(submission({ hash: "a", maxCycles: 1 })))
        yield* succeed(used.id)
        assert.strictEqual((yield* store.recordAndClaim(submission({ hash: "b", maxCycles: 1 })))._tag, "CycleBlocked")

        const result = yield* store.recordAndClaim(submission({ loop: "review", hash: "b" }))
        assert.strictEqual(result._tag, "CycleBlocked")
        if (result._tag !== "CycleBlocked") return
        assert.deepStrictEqual(result.superseded, Option.some(pending.id))
        assert.strictEqual((yield* store.getRun(pending.id)).state._tag, "Canceled")
        assert.deepStrictEqual(yield* store.openRuns, [])
      }))
  })

  layer(testLedger(engine))("a Run canceled before its first Attempt", (it) => {
    it.effect("gives its reservation back; a started one keeps it", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const first = openedRun(yield* store.recordAndClaim(submission({ hash: "a", maxCycles: 1 })))
        yield* store.cancel(first.id)
        const second = openedRun(yield* store.recordAndClaim(submission({ hash: "b", maxCycles: 1 })))
        yield* begin(second.id)
        yield* store.cancel(second.id)
        const third = yield* store.recordAndClaim(submission({ hash: "c", maxCycles: 1 }))
        assert.strictEqual(third._tag, "CycleBlocked")
      }))
  })

  layer(testLedger(engine))("a schedule submission", (it) => {
    it.effect("has no cycle budget", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const itemKey = scheduleItemKeyOf(REPOSITORY)
        for (const scheduledAt of ["2026-01-01T00:00Z", "2026-01-02T00:00Z", "2026-01-03T00:00Z", "2026-01-04T00:00Z"]) {
          const result = yield* store.recordAndClaim({
            ...submission({ loop: "nightly", maxCycles: undefined }),
            eventId: tickEventIdOf({ loop: "nightly", repository: REPOSITORY, scheduledAt }),
            itemKey
          })
          yield* succeed(openedRun(result).id)
        }
        assert.deepStrictEqual(yield* store.asks, [])
      }))
  })
})
