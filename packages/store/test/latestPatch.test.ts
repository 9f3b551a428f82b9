import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { openedRun, submission } from "./fixtures/testLedger"
import { testReadModel } from "./ReadModel.support"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

describeEngines("AttemptPatches.latestPatch (issue 21)", (engine) => {
  layer(testReadModel(engine))("the diff of a harvested Attempt", (it) => {
    it.effect("a Run whose Attempt pushed without the gate keeps its diff; a Run without one has none", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = openedRun(yield* store.recordAndClaim(submission({ number: 900 })))
        assert.isTrue(Option.isNone(yield* store.latestPatch(run.id)))
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") throw new Error("expected Started")
        yield* store.recordPatch(begun.attempt.id, { text: "+++ b/src/a.js\n+a line\n", cut: true })
        const decision = yield* store.finishAttempt(begun.attempt.id, new AttemptSucceeded({ result: { commits: ["c1"], summary: "pushed" } }))
        assert.strictEqual(decision.run.state._tag, "Succeeded")
        assert.isTrue(Option.isNone(yield* store.heldAttempt(run.id)), "nothing was held")
        assert.deepStrictEqual(Option.getOrThrow(yield* store.latestPatch(run.id)), {
          attemptNumber: 1,
          patch: { text: "+++ b/src/a.js\n+a line\n", cut: true }
        })
        const other = openedRun(yield* store.recordAndClaim(submission({ number: 901 })))
        assert.isTrue(Option.isNone(yield* store.latestPatch(other.id)))
      }))
  })
})
