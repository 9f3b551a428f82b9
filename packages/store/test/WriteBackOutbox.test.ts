import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import * as Outbox from "@usine/store/WriteBackOutbox"
import { WriteBackOutbox } from "@usine/store/WriteBackOutbox"
import { openedRun, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"

const world = (engine: LedgerEngine) => Outbox.layer.pipe(Layer.provideMerge(testLedger(engine)))

describeEngines("WriteBackOutbox", (engine) => {
  layer(world(engine))("outbox", (it) => {
    it.effect("one write-back per transition to Running, Succeeded or Failed of an Item Run, in order per Run, retried until done", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
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

        yield* outbox.failed(due[0]!.id, "GitHub refused: 403", 0, 5_000)
        yield* outbox.done(due[1]!.id, 0)
        assert.deepStrictEqual((yield* outbox.due(0, 10)).map((d) => [d.runId, d.phase]), [[failed, "failed"]])
        assert.deepStrictEqual(yield* outbox.troubles(succeeded), [
          { phase: "running", tries: 1, lastError: "GitHub refused: 403", notes: [], status: "retrying" }
        ])
        assert.deepStrictEqual(yield* outbox.troubles(failed), [], "a write done at its first try is no trouble")
        const retried = yield* outbox.due(5_000, 10)
        assert.deepStrictEqual(retried.map((d) => [d.runId, d.phase, d.tries]), [[succeeded, "running", 1], [failed, "failed", 0]])
        yield* outbox.done(retried[0]!.id, 5_000)
        assert.deepStrictEqual((yield* outbox.due(5_000, 10)).map((d) => [d.runId, d.phase]), [[succeeded, "succeeded"], [failed, "failed"]])
        assert.deepStrictEqual(yield* outbox.troubles(succeeded), [
          { phase: "running", tries: 1, lastError: "GitHub refused: 403", notes: [], status: "recovered" }
        ])

        // Given up after its last try: shown on the Run, and the Run's next write goes on.
        const [ending, failing] = yield* outbox.due(5_000, 10)
        yield* outbox.failed(ending!.id, "GitHub failed with 500", 6_000, undefined)
        yield* outbox.done(failing!.id, 6_000, ["reviewer approver skipped: nobody approved the Run"])
        assert.deepStrictEqual(yield* outbox.due(10_000_000, 10), [])
        assert.deepStrictEqual(yield* outbox.troubles(succeeded), [
          { phase: "running", tries: 1, lastError: "GitHub refused: 403", notes: [], status: "recovered" },
          { phase: "succeeded", tries: 1, lastError: "GitHub failed with 500", notes: [], status: "gave-up" }
        ])
        assert.deepStrictEqual(yield* outbox.troubles(failed), [
          { phase: "failed", tries: 0, notes: ["reviewer approver skipped: nobody approved the Run"], status: "done" }
        ])
      }))

    it.effect("a canceled Run is written back once it ran, with its reason; its approval and trigger time come with every write", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const outbox = yield* WriteBackOutbox
        yield* outbox.advance
        for (const pending of yield* outbox.due(Number.MAX_SAFE_INTEGER, 100)) yield* outbox.done(pending.id, 0)
        const started = openedRun(yield* store.recordAndClaim(submission({ number: 11, approvalRequired: true, receivedAt: 4_242 })))
        yield* store.parkForApproval(started.id)
        yield* store.approve(started.id)
        const begun = yield* store.beginAttempt(started.id, { live: () => true })
        assert.strictEqual(begun._tag, "Started")
        yield* store.cancel(started.id)
        // Canceled before it ran: nothing on GitHub to undo.
        const unstarted = openedRun(yield* store.recordAndClaim(submission({ number: 12, approvalRequired: true })))
        yield* store.parkForApproval(unstarted.id)
        yield* store.cancel(unstarted.id)
        assert.strictEqual(yield* outbox.advance, 2)

        const due = yield* outbox.due(Number.MAX_SAFE_INTEGER, 10)
        assert.deepStrictEqual(due.map((d) => [d.number, d.phase]), [[11, "running"]])
        assert.strictEqual(due[0]!.receivedAt, 4_242)
        assert.deepStrictEqual(due[0]!.approval, { actor: "operator", reason: "approved" })
        assert.strictEqual(due[0]!.cancelReason, undefined)
        yield* outbox.done(due[0]!.id, 0)
        const [canceled] = yield* outbox.due(Number.MAX_SAFE_INTEGER, 10)
        assert.deepStrictEqual([canceled?.number, canceled?.phase, canceled?.cancelReason], [11, "canceled", "OperatorCanceled"])
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
