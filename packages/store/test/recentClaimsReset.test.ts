import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { storesAt, openedRun, REPOSITORY, submission, succeed } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { describeEngines } from "@usine/testkit/ledgerEngines"

/** What the trigger submits for the same issue content: its Event id follows the Item's generation of the moment. */
const polled = Effect.gen(function* () {
  const store = yield* runLedger
  return submission({ number: 4, hash: "same", maxCycles: 1, generation: yield* store.generation(itemKeyOf(REPOSITORY, 4)) })
})

describeEngines("RecentClaims and a cycle-budget reset (ADR 0080)", (engine) => {
  it.scoped("the same content is a duplicate until a reset, then claimable again, also after a restart", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const first = yield* Effect.scoped(Effect.provide(Effect.gen(function* () {
        const store = yield* runLedger
        const run = openedRun(yield* store.recordAndClaim(yield* polled))
        yield* succeed(run.id)
        const again = yield* store.recordAndClaim(yield* polled)
        assert.deepStrictEqual(again._tag === "Claimed" && [again.opened, again.run.id, again.run.state._tag], [false, run.id, "Succeeded"])
        return run
      }), storesAt(engine, file)))
      // A restart: the set starts from the ledger's newest answers, and the reset comes from the Board.
      yield* Effect.scoped(Effect.provide(Effect.gen(function* () {
        const store = yield* runLedger
        const known = yield* store.recordAndClaim(yield* polled)
        assert.deepStrictEqual(known._tag === "Claimed" && [known.opened, known.run.id], [false, first.id])
        yield* store.resetCycleBudget(itemKeyOf(REPOSITORY, 4))
        const claimed = yield* store.recordAndClaim(yield* polled)
        assert.isTrue(claimed._tag === "Claimed" && claimed.opened, "the reset made the same content claimable")
        assert.notStrictEqual(claimed._tag === "Claimed" && claimed.run.id, first.id)
        const old = yield* store.recordAndClaim(submission({ number: 4, hash: "same", maxCycles: 1, generation: 0 }))
        assert.deepStrictEqual(old._tag === "Claimed" && [old.opened, old.run.id], [false, first.id], "the old Event keeps its Run")
      }), storesAt(engine, file)))
    }))
})
