import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { ItemStore } from "@usine/store/ItemStore"
import { ReadModel } from "@usine/store/ReadModel"
import { REPOSITORY, submission } from "./fixtures/testLedger"
import { fail, line, open, testReadModel } from "./ReadModel.support"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

describeEngines("ReadModel", (engine) => {
  layer(testReadModel(engine))("needsYou", (it) => {
    it.effect("lists Waiting Runs with their task, unresolved failures with their tail, and open Asks", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const model = yield* ReadModel
        const gated = yield* open({ number: 1, approvalRequired: true, receivedAt: 10 })
        yield* store.parkForApproval(gated.id)
        const failing = yield* open({ number: 2, receivedAt: 20 })
        const rows = Array.from({ length: 8 }, (_, i) => line(`row ${i + 1}`))
        const attempt = yield* fail(failing.id, "tests kept failing", rows)
        yield* open({ number: 3, receivedAt: 30 }) // Pending: nothing to do for the operator

        const needs = yield* model.needsYou(10)
        assert.deepStrictEqual(needs.waiting.map((w) => [w.run.id, w.run.state, w.task]), [
          [gated.id, "Waiting", submission({ number: 1 }).task]
        ])
        assert.strictEqual(needs.failed.length, 1)
        const failure = needs.failed[0]!
        assert.strictEqual(failure.run.id, failing.id)
        assert.strictEqual(failure.attemptId, attempt.id)
        assert.deepStrictEqual(failure.failure, {
          tag: "AgentFailure",
          reason: "tests kept failing",
          evidence: "evidence of tests kept failing",
          message: "agent failure: tests kept failing"
        })
        assert.deepStrictEqual(failure.lastLines.map((l) => l.text), ["row 4", "row 5", "row 6", "row 7", "row 8"])
        assert.isFalse(needs.moreWaiting)
        assert.isFalse(needs.moreFailed)

        yield* store.resolveFailure(failing.id)
        assert.deepStrictEqual((yield* model.needsYou(10)).failed, [], "a resolved failure leaves Needs you")
        yield* store.retry(failing.id)
        const second = yield* fail(failing.id, "still failing")
        const again = (yield* model.needsYou(10)).failed
        assert.deepStrictEqual(again.map((f) => [f.attemptId, f.attemptNumber]), [[second.id, 2]], "a new failure returns")
      }))

    it.effect("bounds each list and says more exist", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        for (const number of [11, 12, 13]) {
          const run = yield* open({ number, approvalRequired: true, receivedAt: number })
          yield* store.parkForApproval(run.id)
        }
        const needs = yield* (yield* ReadModel).needsYou(2)
        assert.strictEqual(needs.waiting.length, 2)
        assert.isTrue(needs.moreWaiting)
      }))

    it.effect("shows the Ask of an Item whose cycle budget is spent until it is reset", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const model = yield* ReadModel
        const first = yield* open({ number: 40, hash: "a", maxCycles: 1 })
        yield* store.cancel(first.id)
        // A canceled unstarted Run gives its reservation back; a succeeded one keeps it.
        const run = yield* open({ number: 40, hash: "b", maxCycles: 1 })
        const begun = yield* store.beginAttempt(run.id, { live: () => false })
        if (begun._tag === "Failed") throw new Error("expected an Attempt")
        yield* store.finishAttempt(begun.attempt.id, new AttemptSucceeded({ result: { commits: [] } }))
        const blocked = yield* store.recordAndClaim(submission({ number: 40, hash: "c", maxCycles: 1 }))
        assert.strictEqual(blocked._tag, "CycleBlocked")
        const asks = (yield* model.needsYou(10)).asks.filter((a) => a.number === 40)
        assert.deepStrictEqual(asks.map((a) => [a.loop, a.repository, a.number, a.limit]), [
          ["start-dev", REPOSITORY.toLowerCase(), 40, 1]
        ])
        yield* store.resetCycleBudget(itemKeyOf(REPOSITORY, 40), { askId: asks[0]!.askId })
        assert.deepStrictEqual((yield* model.needsYou(10)).asks.filter((a) => a.number === 40), [])
      }))
  })

  layer(testReadModel(engine))("run detail", (it) => {
    it.effect("holds Attempts, the transition log, transcript windows and usage from the newest row per Attempt", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const model = yield* ReadModel
        const run = yield* open({ number: 5 })
        const usage = (input: number, cost: number) => ({
          kind: "usage" as const,
          text: "tokens",
          usage: { inputTokens: input, outputTokens: 1, cachedInputTokens: 0, costUsd: cost },
          at: 0
        })
        const first = yield* fail(run.id, "no", [usage(10, 0.1), line("a"), usage(30, 0.3)])
        yield* store.retry(run.id)
        const begun = yield* store.beginAttempt(run.id, { live: () => false })
        if (begun._tag === "Failed") throw new Error("expected an Attempt")
        yield* store.appendTranscript(begun.attempt.id, [usage(5, 0.05), line("b"), line("c"), line("d")])

        const detail = yield* model.run(run.id)
        assert.strictEqual(detail.run.state._tag, "Running")
        assert.deepStrictEqual(detail.attempts.map((a) => [a.number, a.outcome?._tag]), [[1, "Failed"], [2, undefined]])
        assert.deepStrictEqual(detail.transitions.map((t) => `${t.actor}:${t.to}`), [
          "trigger:Pending",
          "engine:Running",
          "engine:Failed",
          "operator:Running"
        ])
        assert.deepStrictEqual(detail.usageByAttempt.map((u) => [u.attemptId, u.usage.inputTokens]), [
          [first.id, 30],
          [begun.attempt.id, 5]
        ])
        assert.strictEqual(detail.usage?.inputTokens, 35)
        assert.closeTo(detail.usage?.costUsd ?? 0, 0.35, 1e-9)

        const tail = yield* model.transcript(begun.attempt.id, { limit: 2, newest: true })
        assert.deepStrictEqual(tail.map((l) => l.text), ["c", "d"])
        const after = yield* model.transcript(begun.attempt.id, { afterSeq: 2, limit: 10 })
        assert.deepStrictEqual(after.map((l) => [l.seq, l.text]), [[3, "c"], [4, "d"]])

        const pulse = yield* model.runPulse(run.id)
        assert.deepStrictEqual(Option.map(pulse, (p): ReadonlyArray<unknown> => [p.state, p.latestAttemptId]), Option.some(["Running", begun.attempt.id]))
        const missing = yield* Effect.flip(model.run("0".repeat(32) as never))
        assert.strictEqual(missing._tag, "RunNotFound")
      }))
  })

  layer(testReadModel(engine))("board items and loops", (it) => {
    it.effect("reads labels from both payload shapes, attaches open Runs, and counts Runs per Loop", () =>
      Effect.gen(function* () {
        const items = yield* ItemStore
        const store = yield* runLedger
        const model = yield* ReadModel
        const save = (repository: string, number: number, payload: unknown) =>
          items.saveProjection({ itemKey: itemKeyOf(repository, number), repository, number, payload, contentHash: "h", observedAt: 1 })
        yield* save(REPOSITORY, 7, {
          number: 7, title: "<b>Fix</b> it", state: "OPEN", url: "https://x/7", labels: { nodes: [{ name: "ready-for-agent" }] }
        })
        yield* save(REPOSITORY, 8, { __typename: "PullRequest", title: "PR", state: "OPEN", merged: false, labels: ["ready-for-review"] })
        yield* save("other/repo", 1, { title: "elsewhere", labels: [] })
        const run = yield* open({ number: 7, loop: "start-dev" })
        const done = yield* open({ number: 8, loop: "review-pr" })
        yield* store.cancel(done.id)
        yield* store.setPaused("review-pr", true)

        const board = yield* model.boardItems([REPOSITORY])
        assert.deepStrictEqual(board.map((i) => [i.number, i.kind, i.title, i.state, i.labels]), [
          [7, "issue", "<b>Fix</b> it", "open", ["ready-for-agent"]],
          [8, "pull_request", "PR", "open", ["ready-for-review"]]
        ])
        assert.deepStrictEqual(board[0]!.openRuns, [{ id: run.id, loop: "start-dev", state: "Pending" }])
        assert.deepStrictEqual(board[1]!.openRuns, [])

        const loops = yield* model.loops
        assert.deepStrictEqual(loops.loops.map((l) => [l.loop, l.counts.Pending, l.counts.Canceled, l.paused]), [
          ["review-pr", 0, 1, true],
          ["start-dev", 1, 0, false]
        ])
      }))

    it.effect("changes its change mark when a Run changes state or a Loop is paused", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const model = yield* ReadModel
        const before = yield* model.changeMark
        assert.strictEqual(yield* model.changeMark, before)
        const run = yield* open({ number: 60 })
        const opened = yield* model.changeMark
        assert.notStrictEqual(opened, before)
        yield* store.cancel(run.id)
        const canceled = yield* model.changeMark
        assert.notStrictEqual(canceled, opened)
        yield* store.setPaused("start-dev", false)
        yield* store.setPaused("nightly", true)
        assert.notStrictEqual(yield* model.changeMark, canceled)
      }))
  })
})
