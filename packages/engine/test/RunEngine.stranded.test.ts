import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const s1 = submission({ number: 1, receivedAt: 1, content: "v1" })
const s2 = submission({ number: 1, receivedAt: 2, content: "v2" })
// The re-check of a queued Event's trigger reads GitHub: it takes a moment, and a stopping daemon cuts it off.
const slowTrigger = { holds: () => Effect.sleep("2 seconds").pipe(Effect.as(true)) }

describe("RunEngine: queued Events whose Run closed as the daemon stopped", () => {
  it.scoped("a drain that cuts off the trigger re-check leaves the Event for the next daemon", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(runOf(s1), Script.succeed("10 minutes"))
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine, store } = yield* startEngine({ ledger, executor: memory, trigger: slowTrigger })
        yield* engine.submit(s1)
        yield* until("attempt 1 started", () => memory.executions.length === 1)
        assert.strictEqual((yield* engine.submit(s2))._tag, "Queued")
        yield* engine.requestShutdown
        const drained = yield* Effect.fork(engine.drain())
        yield* TestClock.adjust("10 minutes")
        yield* settle
        assert.strictEqual(yield* drained.await.pipe(Effect.flatten), "Idle")
        assert.strictEqual((yield* store.getRun(runOf(s1))).state._tag, "Succeeded")
        assert.isTrue((yield* store.getRun(runOf(s2)).pipe(Effect.either))._tag === "Left", "the drain cut the check off")
      }))
      const { engine, store } = yield* startEngine({ ledger, executor: memory })
      yield* untilState(store, runOf(s2), "Succeeded")
      assert.deepStrictEqual(memory.executions, [attemptIdOf(runOf(s1), 1), attemptIdOf(runOf(s2), 1)])
      assert.strictEqual((yield* engine.reconcile).stranded, 0, "nothing is left queued")
    }))

  it.scoped("an operator cancel just before the daemon stopped leaves it too", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(runOf(s1), Script.hang)
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine } = yield* startEngine({ ledger, executor: memory, trigger: slowTrigger })
        yield* engine.submit(s1)
        yield* until("attempt 1 started", () => memory.executions.length === 1)
        assert.strictEqual((yield* engine.submit(s2))._tag, "Queued")
        yield* engine.cancel(runOf(s1))
      }))
      const { store } = yield* startEngine({ ledger, executor: memory, trigger: slowTrigger })
      yield* TestClock.adjust("2 seconds")
      yield* untilState(store, runOf(s2), "Succeeded")
      assert.strictEqual((yield* store.getRun(runOf(s1))).state._tag, "Canceled")
    }))

  it.scoped("a trigger that no longer holds after the restart ignores the stranded Events", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(runOf(s1), Script.hang)
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine } = yield* startEngine({ ledger, executor: memory, trigger: slowTrigger })
        yield* engine.submit(s1)
        yield* until("attempt 1 started", () => memory.executions.length === 1)
        yield* engine.submit(s2)
        yield* engine.cancel(runOf(s1))
      }))
      const { engine, store } = yield* startEngine({ ledger, executor: memory, trigger: { holds: () => Effect.succeed(false) } })
      yield* until("the Event is ignored", () =>
        Effect.map(store.newestQueued(s2.loop, s2.itemKey), (queued) => queued._tag === "None"))
      assert.isTrue((yield* store.getRun(runOf(s2)).pipe(Effect.either))._tag === "Left")
      assert.strictEqual((yield* engine.reconcile).stranded, 0)
    }))
})
