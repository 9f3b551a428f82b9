import { assert } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptCanceled, AttemptFailed } from "@usine/core/attempt/outcome"
import { RunId } from "@usine/core/ids/RunId"
import { StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import { Pending } from "@usine/core/run/state"
import { makeLedger } from "@usine/store/SqlRunStore/Ledger"
import { openedRun, submission, succeed, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

let item = 100
const opened = (approvalRequired = false) =>
  Effect.flatMap(runLedger, (store) => store.recordAndClaim(submission({ number: item++, approvalRequired }))).pipe(
    Effect.map(openedRun)
  )

const failedRun = Effect.gen(function* () {
  const store = yield* runLedger
  const run = yield* opened()
  const begun = yield* store.beginAttempt(run.id, { live: () => true })
  if (begun._tag !== "Started") throw new Error("expected Started")
  yield* store.finishAttempt(begun.attempt.id, new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) }))
  return yield* store.getRun(run.id)
})

const tags = (runId: RunId) =>
  Effect.flatMap(runLedger, (store) => store.transitions(runId)).pipe(Effect.map((ts) => ts.map((t) => `${t.actor}:${t.to}`)))

describeEngines("operator actions", (engine) => {
  layer(testLedger(engine))("approval", (it) => {
    it.effect("parks a Pending Run, approves it with an approval Event, and repeats as a no-op", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened(true)
        assert.strictEqual((yield* Effect.flip(store.approve(run.id)))._tag, "RunStateConflict")
        const waiting = yield* store.parkForApproval(run.id)
        assert.strictEqual(waiting.state._tag, "Waiting")
        assert.deepStrictEqual(yield* store.parkForApproval(run.id), waiting)
        const stale = yield* Effect.flip(store.approve(run.id, waiting.version - 1))
        assert.instanceOf(stale, StaleRunVersion)
        const approved = yield* store.approve(run.id, waiting.version)
        assert.isTrue(approved.approved)
        assert.strictEqual(approved.run.state._tag, "Queued")
        const again = yield* store.approve(run.id, waiting.version)
        assert.deepStrictEqual([again.approved, again.run.version], [false, approved.run.version])
        yield* succeed(run.id)
        assert.isFalse((yield* store.approve(run.id)).approved)
        assert.deepStrictEqual(yield* tags(run.id), [
          "trigger:Pending",
          "engine:Waiting",
          "operator:Queued",
          "engine:Running",
          "engine:Succeeded"
        ])
        assert.strictEqual((yield* Effect.flip(store.parkForApproval(run.id)))._tag, "RunStateConflict")
      }))

    it.effect("an unapproved Waiting Run expires as Canceled (ApprovalTimedOut)", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened(true)
        assert.strictEqual((yield* Effect.flip(store.expireApproval(run.id, 60)))._tag, "RunStateConflict")
        yield* TestClock.adjust("5 seconds")
        const waiting = yield* store.parkForApproval(run.id)
        yield* TestClock.adjust("5 seconds")
        const awaiting = (yield* store.awaitingApproval).filter((w) => w.runId === run.id)
        assert.deepStrictEqual(awaiting, [{ runId: run.id, loop: run.loop, since: waiting.updatedAt }])
        assert.isAbove(waiting.updatedAt, run.updatedAt, "since is when it began waiting, not when it opened")
        const expired = yield* store.expireApproval(run.id, 60)
        assert.deepStrictEqual(expired.state._tag === "Canceled" && expired.state.reason._tag, "ApprovalTimedOut")
        assert.isFalse((yield* store.awaitingApproval).some((w) => w.runId === run.id))
        assert.strictEqual((yield* Effect.flip(store.approve(run.id)))._tag, "RunStateConflict")
      }))

    it.effect("an unknown Run is RunNotFound", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        assert.strictEqual((yield* Effect.flip(store.approve(RunId("nope"))))._tag, "RunNotFound")
        assert.strictEqual((yield* Effect.flip(store.getRun(RunId("nope"))))._tag, "RunNotFound")
      }))
  })

  layer(testLedger(engine))("retry and resolveFailure", (it) => {
    it.effect("retry moves Failed to Running with the amendment, once; other states conflict", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const failed = yield* failedRun
        assert.strictEqual(
          (yield* Effect.flip(store.retry(failed.id, { expectedVersion: failed.version + 1 })))._tag,
          "StaleRunVersion"
        )
        const retried = yield* store.retry(failed.id, {
          amendment: { task: "try harder", model: "gpt-x" },
          expectedVersion: failed.version
        })
        assert.deepStrictEqual(
          [retried.state._tag, retried.task, retried.agent, retried.model],
          ["Running", "try harder", "codex", "gpt-x"]
        )
        assert.strictEqual((yield* Effect.flip(store.retry(failed.id)))._tag, "RunStateConflict")
        assert.deepStrictEqual((yield* tags(failed.id)).slice(-2), ["engine:Failed", "operator:Running"])
      }))

    it.effect("retry is refused while a newer Run of the same Loop and Item is open", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const failed = yield* failedRun
        const newer = openedRun(
          yield* store.recordAndClaim(submission({ number: failed.number ?? -1, hash: "newer" }))
        )
        const refused = yield* Effect.flip(store.retry(failed.id))
        assert.strictEqual(refused._tag, "RunStateConflict")
        assert.include(refused.message, newer.id)
        yield* succeed(newer.id)
        assert.strictEqual((yield* store.retry(failed.id)).state._tag, "Running")
      }))

    it.effect("resolveFailure marks the latest failed Attempt handled without a state change", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const failed = yield* failedRun
        const before = (yield* store.transitions(failed.id)).length
        const resolved = yield* store.resolveFailure(failed.id)
        const [attempt] = yield* store.attempts(failed.id)
        assert.strictEqual(resolved.resolvedFailureAttemptId, attempt?.id)
        assert.strictEqual(resolved.state._tag, "Failed")
        assert.deepStrictEqual(yield* store.resolveFailure(failed.id), resolved)
        assert.strictEqual((yield* store.transitions(failed.id)).length, before)
        const pending = yield* opened()
        assert.strictEqual((yield* Effect.flip(store.resolveFailure(pending.id)))._tag, "RunStateConflict")
      }))
  })

  layer(testLedger(engine))("cancel", (it) => {
    it.effect("cancels an open Run and closes its open Attempt; a repeat is a no-op", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened()
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        assert.strictEqual((yield* Effect.flip(store.cancel(run.id, { expectedVersion: 1 })))._tag, "StaleRunVersion")
        const result = yield* store.cancel(run.id, { reason: "wrong issue", expectedVersion: begun.run.version })
        assert.isTrue(result.canceled)
        assert.deepStrictEqual(result.run.state._tag === "Canceled" && result.run.state.reason._tag, "OperatorCanceled")
        const attempt = Option.getOrThrow(result.attempt)
        assert.deepStrictEqual(attempt.outcome, new AttemptCanceled({ reason: "wrong issue" }))
        const last = (yield* store.transitions(run.id)).at(-1)
        assert.deepStrictEqual([last?.from, last?.to, last?.actor, last?.reason], ["Running", "Canceled", "operator", "wrong issue"])
        const again = yield* store.cancel(run.id)
        assert.deepStrictEqual([again.canceled, again.run.version, Option.isNone(again.attempt)], [false, result.run.version, true])
      }))

    it.effect("cancels Pending, Waiting and Queued Runs, and refuses closed ones", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const pending = yield* opened()
        const waiting = yield* opened(true)
        yield* store.parkForApproval(waiting.id)
        const queued = yield* opened(true)
        yield* store.parkForApproval(queued.id)
        yield* store.approve(queued.id)
        for (const run of [pending, waiting, queued]) {
          const result = yield* store.cancel(run.id)
          assert.isTrue(result.canceled && Option.isNone(result.attempt))
        }
        const done = yield* opened()
        yield* succeed(done.id)
        assert.strictEqual((yield* Effect.flip(store.cancel(done.id)))._tag, "RunStateConflict")
        const failed = yield* failedRun
        assert.strictEqual((yield* Effect.flip(store.cancel(failed.id)))._tag, "RunStateConflict")
      }))
  })

  layer(testLedger(engine))("optimistic versions", (it) => {
    it.effect("a write from a stale read is refused and writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const ledger = yield* makeLedger
        const run = yield* opened(true)
        yield* store.parkForApproval(run.id)
        const stale = yield* ledger.writer
          .save(run, { state: new Pending(), task: "overwritten" }, { actor: "engine", reason: "stale" })
          .pipe(Effect.flip)
        if (stale._tag !== "StaleRunVersion") return assert.fail(`a stale version, not ${stale._tag}`)
        assert.deepStrictEqual([stale.expected, stale.actual], [1, 2])
        const now = yield* store.getRun(run.id)
        assert.deepStrictEqual([now.state._tag, now.task, now.version], ["Waiting", run.task, 2])
        assert.strictEqual((yield* store.transitions(run.id)).length, 2)
      }))
  })

  layer(testLedger(engine))("loop runtime", (it) => {
    it.effect("pauses and unpauses Loops", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        yield* store.setPaused("start-dev", true)
        yield* store.setPaused("review", true)
        yield* store.setPaused("review", false)
        assert.deepStrictEqual([...(yield* store.pausedLoops)], ["start-dev"])
      }))
  })
})
