import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const done = new AttemptSucceeded({ result: { commits: [] } })

describe("RunEngine Worker slots", () => {
  it.scoped("serves slots in Event receipt order across Loops and Workers", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.scriptOthers(() => Script.hang)
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: {
          ...defaultPolicies,
          loops: { build: loopPolicy(), review: loopPolicy({ workers: ["w2"] }) }
        }
      })
      const first = submission({ number: 1, receivedAt: 1 })
      const second = submission({ number: 2, receivedAt: 2 })
      yield* engine.submit(first)
      yield* engine.submit(second)
      yield* until("both Workers busy", () => memory.executions.length === 2)

      // Submitted in this order, received in another; review runs only on w2, claude only on w2.
      const late = submission({ number: 10, receivedAt: 30 })
      const review = submission({ loop: "review", number: 11, receivedAt: 10 })
      const mid = submission({ number: 12, receivedAt: 20 })
      const claude = submission({ loop: "review", number: 13, receivedAt: 5, agent: "claude" })
      for (const s of [late, review, mid, claude]) yield* engine.submit(s)
      yield* settle

      const workerOf = (s: typeof first) => memory.requests.find((r) => r.run.id === runOf(s))?.worker
      const finishAndNext = (s: typeof first, expected: typeof first) =>
        Effect.gen(function*() {
          const count = memory.executions.length
          memory.finish(attemptIdOf(runOf(s), 1), done)
          yield* untilState(store, runOf(s), "Succeeded")
          yield* until("next started", () => memory.executions.length === count + 1)
          assert.strictEqual(memory.executions.at(-1), attemptIdOf(runOf(expected), 1))
        })

      assert.strictEqual(workerOf(first), "w1")
      yield* finishAndNext(first, mid) // w1 frees: claude and review cannot use it
      yield* finishAndNext(second, claude) // w2 frees: 5 before 10 and 30
      yield* finishAndNext(claude, review) // w2 again: 10 before 30, though 30 could use w2 too
      yield* finishAndNext(mid, late)
      assert.deepStrictEqual(
        [mid, claude, review, late].map(workerOf),
        ["w1", "w2", "w2", "w1"]
      )
    }))

  it.scoped("a Run queued for a slot has no fiber: reconcile leaves it queued, cancel takes it out, a freed slot forks it", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.scriptOthers(() => Script.hang)
      const { driver, engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const [a, b, c] = [1, 2, 3].map((n) => submission({ number: n, receivedAt: n }))
      const gated = submission({ loop: "gated", number: 4, receivedAt: 4, approvalRequired: true })
      for (const s of [a!, b!, c!, gated]) yield* engine.submit(s)
      yield* until("both Workers busy", () => memory.executions.length === 2)
      yield* untilState(store, runOf(gated), "Waiting")
      yield* engine.approve(runOf(gated))
      yield* until("both queued", () => Effect.map(driver.queued, (q) => q.length === 2))
      yield* settle

      assert.deepStrictEqual(yield* driver.queued, [runOf(c!), runOf(gated)], "in receipt order")
      assert.sameMembers([...(yield* driver.fibers)], [runOf(a!), runOf(b!)], "no fiber waits for a slot")
      assert.strictEqual((yield* store.getRun(runOf(gated))).state._tag, "Queued")
      assert.deepStrictEqual((yield* engine.reconcile).restarted, [], "a queued Run is not missing its fiber")
      assert.deepStrictEqual(yield* driver.queued, [runOf(c!), runOf(gated)])

      const canceled = yield* engine.cancel(runOf(c!))
      assert.isTrue(canceled.canceled)
      assert.deepStrictEqual(yield* driver.queued, [runOf(gated)])
      memory.finish(attemptIdOf(runOf(a!), 1), done)
      yield* untilState(store, runOf(gated), "Running")
      yield* until("the approved Run executes", () => memory.executions.length === 3)
      assert.strictEqual(memory.executions.at(-1), attemptIdOf(runOf(gated), 1))
      assert.strictEqual(memory.requests.at(-1)?.worker, "w1", "in the slot the finished Attempt freed")
      assert.deepStrictEqual(yield* store.attempts(runOf(c!)), [], "the canceled Run never ran")
      assert.deepStrictEqual(yield* driver.queued, [])
    }))

  it.scoped("a Run whose Agent no Worker has fails with an AgentFailure and waits for the operator", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1, agent: "pi" })
      yield* engine.submit(s)
      yield* untilState(store, runOf(s), "Failed")
      const [attempt] = yield* store.attempts(runOf(s))
      assert.strictEqual(attempt?.outcome?._tag === "Failed" && attempt.outcome.failure._tag, "AgentFailure")
      assert.deepStrictEqual(memory.executions, [], "nothing ran")

      yield* engine.editAndRetry(runOf(s), { agent: "claude", task: "the amended task", model: "big" })
      yield* untilState(store, runOf(s), "Succeeded")
      const request = memory.requests[0]!
      assert.strictEqual(request.attemptId, attemptIdOf(runOf(s), 2))
      assert.strictEqual(request.worker, "w2")
      assert.deepStrictEqual([request.run.task, request.run.agent, request.run.model], ["the amended task", "claude", "big"])
    }))
})
