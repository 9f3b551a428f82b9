import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { RunStore } from "@usine/store/RunStore"
import * as Outbox from "@usine/store/WriteBackOutbox"
import { WriteBackOutbox } from "@usine/store/WriteBackOutbox"
import { openedRun, submission, TestLedger } from "./fixtures/testLedger"

const world = Outbox.layer.pipe(Layer.provideMerge(TestLedger))

describe("WriteBackOutbox", () => {
  it.layer(world)("outbox", (it) => {
    it.effect("one write-back per transition to Running, Succeeded or Failed of an Item Run, in order per Run, retried until done", () =>
      Effect.gen(function* () {
        const store = yield* RunStore
        const outbox = yield* WriteBackOutbox
        const attempt = (number: number, outcome: AttemptFailed | AttemptSucceeded) =>
          Effect.gen(function* () {
            const run = openedRun(yield* store.recordAndClaim(submission({ number })))
            const begun = yield* store.beginAttempt(run.id, { live: () => true })
            if (begun._tag !== "Started") return yield* Effect.dieMessage("expected Started")
            yield* store.finishAttempt(begun.attempt.id, outcome)
            return run.id
          })
        yield* attempt(1, new AttemptFailed({ failure: new AgentFailure({ reason: "history" }) }))
        assert.strictEqual(yield* outbox.advance, 0, "the first look places the cursor: history is not written back")

        const succeeded = yield* attempt(2, new AttemptSucceeded({
          result: { commits: ["a"], pullRequestNumber: 7, pullRequestUrl: "https://github.example/acme/widgets/pull/7" }
        }))
        const failed = yield* attempt(3, new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) }))
        assert.strictEqual(yield* outbox.advance, 4)
        assert.strictEqual(yield* outbox.advance, 0, "a second look finds nothing new")

        const due = yield* outbox.due(0, 10)
        assert.deepStrictEqual(due.map((d) => [d.runId, d.phase, d.number]), [
          [succeeded, "running", 2],
          [failed, "running", 3]
        ], "a Run's later write waits for its earlier one")
        assert.deepStrictEqual(due[0]?.pullRequest, { number: 7, url: "https://github.example/acme/widgets/pull/7" })

        yield* outbox.failed(due[0]!.id, "GitHub refused: 403", 5_000)
        yield* outbox.done(due[1]!.id, 0)
        assert.deepStrictEqual((yield* outbox.due(0, 10)).map((d) => [d.runId, d.phase]), [[failed, "failed"]])
        assert.deepStrictEqual(yield* outbox.troubles(succeeded), [{ phase: "running", tries: 1, lastError: "GitHub refused: 403", done: false }])
        const retried = yield* outbox.due(5_000, 10)
        assert.deepStrictEqual(retried.map((d) => [d.runId, d.phase, d.tries]), [[succeeded, "running", 1], [failed, "failed", 0]])
        yield* outbox.done(retried[0]!.id, 5_000)
        assert.deepStrictEqual((yield* outbox.due(5_000, 10)).map((d) => [d.runId, d.phase]), [[succeeded, "succeeded"], [failed, "failed"]])
        assert.deepStrictEqual(yield* outbox.troubles(succeeded), [{ phase: "running", tries: 1, lastError: "GitHub refused: 403", done: true }])
      }))

    it.effect("keeps the one comment's id per Item", () =>
      Effect.gen(function* () {
        const outbox = yield* WriteBackOutbox
        assert.strictEqual(yield* outbox.commentOf("acme/widgets", 4), undefined)
        yield* outbox.rememberComment("acme/widgets", 4, 101)
        yield* outbox.rememberComment("acme/widgets", 4, 102)
        assert.strictEqual(yield* outbox.commentOf("acme/widgets", 4), 102)
        assert.strictEqual(yield* outbox.commentOf("acme/widgets", 5), undefined)
      }))
  })
})
