import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

describe("RunEngine operator actions", () => {
  it.scoped("approval: refused for a non-Waiting Run, starts a Waiting one, a second approval is a no-op", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const free = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(free), Script.hang)
      yield* engine.submit(free)
      yield* untilState(store, runOf(free), "Running")
      const refused = yield* engine.approve(runOf(free)).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "RunStateConflict")

      const gated = submission({ loop: "gated", number: 2, receivedAt: 2 })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      yield* settle
      assert.deepStrictEqual(memory.executions, [attemptIdOf(runOf(free), 1)], "a Waiting Run does not run")
      const first = yield* engine.approve(runOf(gated))
      assert.isTrue(first.approved)
      assert.strictEqual(first.run.state._tag, "Queued")
      yield* untilState(store, runOf(gated), "Succeeded")
      const second = yield* engine.approve(runOf(gated))
      assert.isFalse(second.approved)
      assert.strictEqual(memory.executions.length, 2)
    }))

  it.scoped("a Waiting Run left longer than approval_timeout is canceled with its own reason", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { gated: loopPolicy({ approvalRequired: true, approvalTimeoutMinutes: 10 }) } }
      })
      // The Submission does not ask for approval: the Loop's policy does.
      const s = submission({ loop: "gated", number: 1, receivedAt: 1 })
      yield* engine.submit(s)
      yield* untilState(store, runOf(s), "Waiting")
      yield* TestClock.adjust("9 minutes")
      assert.strictEqual((yield* store.getRun(runOf(s))).state._tag, "Waiting")
      yield* TestClock.adjust("3 minutes")
      yield* untilState(store, runOf(s), "Canceled")
      const run = yield* store.getRun(runOf(s))
      const reason = run.state._tag === "Canceled" ? run.state.reason : undefined
      assert.strictEqual(reason?._tag, "ApprovalTimedOut")
      assert.strictEqual(reason?._tag === "ApprovalTimedOut" && reason.afterMinutes, 10)
    }))

  it.scoped("cancel of a Running Run closes its Attempt as Canceled, stops the session, then opens the queued Event's Run", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.hang)
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      assert.strictEqual((yield* engine.submit(queued))._tag, "Queued")

      const result = yield* engine.cancel(runOf(running))
      assert.isTrue(result.canceled)
      const [attempt] = yield* store.attempts(runOf(running))
      assert.strictEqual(attempt?.outcome?._tag, "Canceled")
      assert.deepStrictEqual(memory.cancels, [attemptIdOf(runOf(running), 1)])
      assert.isFalse(memory.isRunning(attemptIdOf(runOf(running), 1)))
      yield* untilState(store, runOf(queued), "Succeeded")

      const again = yield* engine.cancel(runOf(running))
      assert.isFalse(again.canceled)
      assert.strictEqual(memory.cancels.length, 1)
      const closed = yield* engine.cancel(runOf(queued)).pipe(Effect.flip)
      assert.strictEqual(closed._tag, "RunStateConflict")
    }))

  it.scoped("a retry while the closed Run's fiber still checks a queued Event's trigger runs at once", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      let checks = 0
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        trigger: { holds: () => Effect.sync(() => checks++).pipe(Effect.zipRight(Effect.never)) }
      })
      const first = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(first), Script.fail(new AgentFailure({ reason: "red tests", evidence: "" }), "1 minute"), Script.succeed())
      yield* engine.submit(first)
      yield* untilState(store, runOf(first), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      yield* engine.submit(queued)
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(first), "Failed")
      yield* until("the queued Event's check hangs", () => checks === 1)

      yield* engine.retry(runOf(first))
      yield* untilState(store, runOf(first), "Succeeded")
      assert.strictEqual(memory.executions.length, 2)
      yield* until("checked again after the retried Run closed", () => checks === 2)
      yield* TestClock.adjust("5 seconds")
      yield* untilState(store, runOf(queued), "Succeeded")
    }))

  it.scoped("pause stops new submissions while existing Runs and queued Events go on", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.succeed("10 minutes"))
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      yield* engine.submit(queued)

      yield* engine.pause("build")
      const refused = yield* engine.submit(submission({ number: 2, receivedAt: 3 })).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "LoopPaused")
      assert.strictEqual((yield* engine.revoke("build", running.itemKey).pipe(Effect.flip))._tag, "LoopPaused")
      assert.strictEqual((yield* engine.submit(submission({ loop: "review", number: 2, receivedAt: 3 })))._tag, "Claimed")

      yield* TestClock.adjust("10 minutes")
      yield* untilState(store, runOf(running), "Succeeded")
      yield* untilState(store, runOf(queued), "Succeeded")
      yield* engine.unpause("build")
      assert.strictEqual((yield* engine.submit(submission({ number: 2, receivedAt: 4 })))._tag, "Claimed")
    }))

  it.scoped("intervene reaches only the open latest Attempt of a Running Run", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(s), Script.hang)
      yield* engine.submit(s)
      yield* untilState(store, runOf(s), "Running")
      yield* until("session started", () => memory.executions.length === 1)
      const wrong = yield* engine.intervene(runOf(s), attemptIdOf(runOf(s), 2), "hello").pipe(Effect.flip)
      assert.strictEqual(wrong._tag, "AttemptNotOpen")
      yield* engine.intervene(runOf(s), attemptIdOf(runOf(s), 1), "use the other API")
      assert.deepStrictEqual(memory.interventions, [{ attemptId: attemptIdOf(runOf(s), 1), message: "use the other API" }])
      yield* engine.cancel(runOf(s))
      const closed = yield* engine.intervene(runOf(s), attemptIdOf(runOf(s), 1), "late").pipe(Effect.flip)
      assert.strictEqual(closed._tag, "RunStateConflict")
      const missing = yield* engine.cancel("nope" as never).pipe(Effect.flip)
      assert.strictEqual(missing._tag, "RunNotFound")
    }))

  it.scoped("revoke cancels unstarted Runs and stops their fibers; a budget reset reopens a blocked Item", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const waiting = submission({ loop: "gated", number: 1, receivedAt: 1 })
      yield* engine.submit(waiting)
      yield* untilState(store, runOf(waiting), "Waiting")
      assert.deepStrictEqual(yield* engine.revoke("gated", waiting.itemKey), [runOf(waiting)])

      const first = submission({ number: 2, receivedAt: 2, maxCycles: 1 })
      yield* engine.submit(first)
      yield* untilState(store, runOf(first), "Succeeded")
      const blocked = yield* engine.submit(submission({ number: 2, receivedAt: 3, maxCycles: 1 }))
      assert.strictEqual(blocked._tag, "CycleBlocked")
      const { generation } = yield* engine.resetCycleBudget(first.itemKey)
      assert.strictEqual(generation, 1)
      const next = submission({ number: 2, receivedAt: 4, maxCycles: 1, generation })
      assert.strictEqual((yield* engine.submit(next))._tag, "Claimed")
      yield* untilState(store, runOf(next), "Succeeded")
      assert.isTrue(Option.isNone(yield* store.newestQueued("build", first.itemKey)))
    }))
})
