import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

describe("RunEngine drain", () => {
  it.scoped("the first signal closes admission at once and the drain waits for admitted Attempts", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const short = submission({ number: 1, receivedAt: 1 })
      const long = submission({ number: 2, receivedAt: 2 })
      const waiting = submission({ number: 3, receivedAt: 3 })
      memory.script(runOf(short), Script.succeed("5 minutes"))
      memory.script(runOf(long), Script.succeed("8 minutes"))
      for (const s of [short, long, waiting]) yield* engine.submit(s)
      yield* until("two Attempts admitted", () => memory.executions.length === 2)

      assert.strictEqual(yield* engine.requestShutdown, "Draining")
      const drain = yield* Effect.fork(engine.drain())
      yield* TestClock.adjust("5 minutes")
      yield* untilState(store, runOf(short), "Succeeded")
      yield* settle
      assert.isTrue(Option.isNone(yield* Fiber.poll(drain)), "still waiting for the long Attempt")
      assert.strictEqual(memory.executions.length, 2, "the freed slot admits nothing")

      yield* TestClock.adjust("3 minutes")
      assert.strictEqual(yield* Fiber.join(drain), "Idle")
      assert.strictEqual((yield* store.getRun(runOf(long))).state._tag, "Succeeded")
      assert.strictEqual((yield* store.getRun(runOf(waiting))).state._tag, "Pending")
      assert.deepStrictEqual(yield* store.attempts(runOf(waiting)), [])
    }))

  it.scoped("a second signal ends the wait; interrupted Attempts stay live and the next start reattaches them", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      const runs = [submission({ number: 1, receivedAt: 1 }), submission({ number: 2, receivedAt: 2 })]
      for (const s of runs) memory.script(runOf(s), Script.succeed("2 hours"))
      const attempts = runs.map((s) => attemptIdOf(runOf(s), 1))

      yield* Effect.scoped(Effect.gen(function*() {
        const { engine, store } = yield* startEngine({ ledger, executor: memory })
        for (const s of runs) yield* engine.submit(s)
        yield* until("both admitted", () => memory.executions.length === 2)
        yield* engine.requestShutdown
        const drain = yield* Effect.fork(engine.drain())
        yield* TestClock.adjust("1 hour")
        assert.isTrue(Option.isNone(yield* Fiber.poll(drain)))
        assert.strictEqual(yield* engine.requestShutdown, "Stopping")
        assert.strictEqual(yield* Fiber.join(drain), "Stopped")
        for (const s of runs) {
          assert.strictEqual((yield* store.getRun(runOf(s))).state._tag, "Running")
          assert.strictEqual((yield* store.attempts(runOf(s)))[0]?.outcome, undefined, "the Attempt stays open")
        }
      }))
      for (const id of attempts) assert.isTrue(memory.isRunning(id), "the session keeps running")
      assert.deepStrictEqual(memory.cancels, [])

      const { store } = yield* startEngine({ ledger, executor: memory })
      yield* until("both reattached", () => memory.reattaches.length === 2)
      yield* TestClock.adjust("1 hour")
      for (const s of runs) yield* untilState(store, runOf(s), "Succeeded")
      assert.deepStrictEqual(memory.executions, attempts)
    }))
})
