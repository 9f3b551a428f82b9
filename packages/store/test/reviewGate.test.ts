import { assert, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { boundPatch, HELD_PATCH_MAX_BYTES } from "@usine/core/attempt/Review"
import type { RunId } from "@usine/core/ids/RunId"
import { ReadModel } from "@usine/store/ReadModel"
import { openedRun, submission } from "./fixtures/testLedger"
import { testReadModel } from "./ReadModel.support"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

let item = 500
const held = (runId: string, number: number) =>
  new AttemptSucceeded({
    result: { commits: ["c1"], summary: "1 commit verified", held: { worker: "local", head: `head${number}`, ref: `refs/usine/salvage/${runId}/${number}` } }
  })

/** A Run whose Attempt stopped at the pull-request gate, with its diff stored. */
const reviewing = Effect.gen(function* () {
  const store = yield* runLedger
  const run = openedRun(yield* store.recordAndClaim(submission({ number: item++ })))
  const begun = yield* store.beginAttempt(run.id, { live: () => true })
  if (begun._tag !== "Started") throw new Error("expected Started")
  yield* store.recordPatch(begun.attempt.id, { text: "+++ b/CHANGES.md\n+a change\n", cut: false })
  const decision = yield* store.finishAttempt(begun.attempt.id, held(run.id, 1))
  return { run, decision, attempt: begun.attempt }
})

const tags = (runId: RunId) =>
  Effect.flatMap(runLedger, (store) => store.transitions(runId)).pipe(Effect.map((ts) => ts.map((t) => `${t.actor}:${t.from ?? ""}→${t.to}`)))

describeEngines("the pull-request gate in the ledger", (engine) => {
  layer(testReadModel(engine))("Reviewing", (it) => {
    it.effect("a held outcome parks the Run in Reviewing with its diff; Approve PR reopens it with the review stored", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const { decision, run } = yield* reviewing
        assert.strictEqual(decision._tag, "Held")
        assert.strictEqual(decision.run.state._tag, "Reviewing")
        const found = Option.getOrThrow(yield* store.heldAttempt(run.id))
        assert.deepStrictEqual([found.patch, found.held.head, Option.isNone(found.review)], [{ text: "+++ b/CHANGES.md\n+a change\n", cut: false }, "head1", true])
        const needs = yield* Effect.flatMap(ReadModel, (model) => model.needsYou(10))
        const shown = needs.reviewing.find((r) => r.run.id === run.id)
        assert.deepStrictEqual([shown?.attemptNumber, shown?.patch, shown?.summary], [1, "+++ b/CHANGES.md\n+a change\n", "1 commit verified"])
        assert.isTrue((yield* store.awaitingApproval).some((w) => w.runId === run.id), "the approval timer sees it")

        const stale = yield* Effect.flip(store.answerReview(run.id, { expectedVersion: decision.run.version - 1 }))
        assert.strictEqual(stale._tag, "StaleRunVersion")
        const approved = yield* store.answerReview(run.id, { expectedVersion: decision.run.version })
        assert.strictEqual(approved.state._tag, "Running")
        const review = Option.getOrThrow(Option.getOrThrow(yield* store.heldAttempt(run.id)).review)
        assert.strictEqual(review._tag, "Approved")
        assert.strictEqual((yield* Effect.flip(store.answerReview(run.id, {})))._tag, "RunStateConflict", "a repeat is refused")
        assert.deepStrictEqual(yield* tags(run.id), ["trigger:→Pending", "engine:Pending→Running", "engine:Running→Reviewing", "operator:Reviewing→Running"])
      }))

    it.effect("Request changes stores the text; a second held Attempt parks again; cancel and expiry close a Reviewing Run", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const { run } = yield* reviewing
        const reopened = yield* store.answerReview(run.id, { text: "mention the date" })
        assert.strictEqual(reopened.state._tag, "Running")
        const review = Option.getOrThrow(Option.getOrThrow(yield* store.heldAttempt(run.id)).review)
        assert.deepStrictEqual(review._tag === "ChangesRequested" ? review.text : "", "mention the date")
        const second = yield* store.beginAttempt(run.id, { live: () => false })
        if (second._tag !== "Started") throw new Error("expected Started")
        assert.strictEqual((yield* store.finishAttempt(second.attempt.id, held(run.id, 2)))._tag, "Held")
        const newest = Option.getOrThrow(yield* store.heldAttempt(run.id))
        assert.deepStrictEqual([newest.attempt.number, Option.isNone(newest.review)], [2, true])
        const canceled = yield* store.cancel(run.id)
        assert.deepStrictEqual([canceled.canceled, canceled.run.state._tag, Option.isNone(canceled.attempt)], [true, "Canceled", true])

        const other = yield* reviewing
        yield* TestClock.adjust("2 minutes")
        const expired = yield* store.expireApproval(other.run.id, 1)
        assert.strictEqual(expired.state._tag === "Canceled" ? expired.state.reason._tag : "", "ApprovalTimedOut")
      }))
  })

  it("a diff longer than the bound is cut on a line, with a note", () => {
    const line = `+${"x".repeat(99)}\n`
    const cut = boundPatch(line.repeat(Math.ceil(HELD_PATCH_MAX_BYTES / line.length) + 10))
    assert.isTrue(cut.cut)
    assert.isBelow(cut.text.length, HELD_PATCH_MAX_BYTES + 200)
    assert.match(cut.text, /\n… diff cut at 256 KiB of \d+ KiB\n$/)
    assert.deepStrictEqual(boundPatch("+a\n"), { text: "+a\n", cut: false })
  })
})
