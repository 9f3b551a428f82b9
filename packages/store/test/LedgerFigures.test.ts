import { assert } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import * as LedgerFiguresLayer from "@usine/store/LedgerFigures"
import { LedgerFigures } from "@usine/store/LedgerFigures"
import { openedRun, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"

const world = (engine: LedgerEngine) => LedgerFiguresLayer.layer.pipe(Layer.provideMerge(testLedger(engine)))

describeEngines("LedgerFigures", (engine) => {
  layer(world(engine))("figures for /metrics", (it) => {
    it.effect("runs by Loop and state, ended Attempts by outcome, and how long they ran and waited", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const figures = yield* LedgerFigures
        const run = (number: number, approvalRequired = false) =>
          Effect.map(store.recordAndClaim(submission({ number, approvalRequired })), openedRun)
        const attempt = (runId: Parameters<typeof store.beginAttempt>[0]) =>
          Effect.flatMap(store.beginAttempt(runId, { live: () => true }), (begun) =>
            begun._tag === "Started" ? Effect.succeed(begun.attempt) : Effect.dieMessage("expected Started"))

        const gated = yield* run(1, true)
        yield* store.parkForApproval(gated.id)
        yield* TestClock.adjust("2 seconds")
        yield* store.approve(gated.id)
        yield* TestClock.adjust("3 seconds") // 3 s in Queued
        const first = yield* attempt(gated.id)
        yield* TestClock.adjust("40 seconds")
        yield* store.finishAttempt(first.id, new AttemptSucceeded({ result: { commits: [], summary: "done" } }))
        const failing = yield* run(2)
        const second = yield* attempt(failing.id)
        yield* TestClock.adjust("2 seconds")
        yield* store.finishAttempt(second.id, new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) }))
        yield* run(3)

        const runs = yield* figures.runs
        const byState = Object.fromEntries(runs.map((f) => [f.labels.state, f.value]))
        assert.deepStrictEqual(byState, { Succeeded: 1, Failed: 1, Pending: 1 })
        const attempts = Object.fromEntries((yield* figures.attempts).map((f) => [f.labels.outcome, f.value]))
        assert.deepStrictEqual(attempts, { Succeeded: 1, Failed: 1 })

        const ran = yield* figures.attemptSeconds([1, 5, 60])
        assert.deepStrictEqual(ran.buckets, [{ le: 1, count: 0 }, { le: 5, count: 1 }, { le: 60, count: 2 }])
        assert.deepStrictEqual([ran.count, ran.sum], [2, 42])
        const waited = yield* figures.queueWaitSeconds([1, 5])
        assert.deepStrictEqual(waited.buckets, [{ le: 1, count: 0 }, { le: 5, count: 1 }], "only the Queued → Running wait")
        assert.deepStrictEqual([waited.count, waited.sum], [1, 3])
        assert.deepStrictEqual(yield* figures.spend, [])
        assert.deepStrictEqual(yield* figures.brakes, { held: [], agentHolds: 0 })
      }))
  })
})
