import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

describe("RunEngine claims", () => {
  it.scoped("a newer Event supersedes an unstarted Run: the old fiber stops and never runs", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      // Both Workers busy, so the next Run stays Pending with its fiber waiting for a slot.
      const busy = [submission({ number: 1, receivedAt: 1 }), submission({ number: 2, receivedAt: 2 })]
      for (const s of busy) memory.script(runOf(s), Script.hang)
      for (const s of busy) yield* engine.submit(s)
      yield* until("both slots taken", () => memory.executions.length === 2)

      const older = submission({ number: 3, receivedAt: 3, content: "old" })
      const newer = submission({ number: 3, receivedAt: 4, content: "new" })
      yield* engine.submit(older)
      yield* settle
      const claim = yield* engine.submit(newer)
      assert.strictEqual(claim._tag, "Claimed")
      if (claim._tag === "Claimed") assert.deepStrictEqual(claim.superseded, Option.some(runOf(older)))
      const old = yield* store.getRun(runOf(older))
      assert.strictEqual(old.state._tag === "Canceled" && old.state.reason._tag, "Superseded")

      memory.finish(attemptIdOf(runOf(busy[0]!), 1), new AttemptSucceeded({ result: { commits: [] } }))
      yield* untilState(store, runOf(newer), "Succeeded")
      assert.deepStrictEqual(memory.executions.slice(2), [attemptIdOf(runOf(newer), 1)])
      assert.deepStrictEqual(yield* store.attempts(runOf(older)), [])
    }))

  it.scoped("a newer Event supersedes a Waiting Run", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const first = submission({ loop: "gated", number: 1, receivedAt: 1 })
      const second = submission({ loop: "gated", number: 1, receivedAt: 2 })
      yield* engine.submit(first)
      yield* untilState(store, runOf(first), "Waiting")
      yield* engine.submit(second)
      yield* untilState(store, runOf(second), "Waiting")
      const old = yield* store.getRun(runOf(first))
      assert.strictEqual(old.state._tag === "Canceled" && old.state.reason._tag, "Superseded")
    }))

  it.scoped("an Event behind a Running Run queues; when the Run closes the newest queued Event opens its Run", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.succeed("10 minutes"))
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")

      const middle = submission({ number: 1, receivedAt: 2 })
      const newest = submission({ number: 1, receivedAt: 3 })
      const queued = yield* engine.submit(middle)
      assert.strictEqual(queued._tag, "Queued")
      if (queued._tag === "Queued") assert.strictEqual(queued.behind, runOf(running))
      assert.strictEqual((yield* engine.submit(newest))._tag, "Queued")
      assert.strictEqual((yield* store.getRun(runOf(running))).state._tag, "Running", "a running Attempt finishes")

      yield* TestClock.adjust("10 minutes")
      yield* untilState(store, runOf(newest), "Succeeded")
      assert.isTrue(Option.isNone(yield* store.newestQueued("build", running.itemKey)))
      assert.isTrue((yield* store.getRun(runOf(middle)).pipe(Effect.either))._tag === "Left", "the older one opens no Run")
      assert.deepStrictEqual(memory.executions, [attemptIdOf(runOf(running), 1), attemptIdOf(runOf(newest), 1)])
    }))

  it.scoped("when the condition no longer holds the queued Events are revoked", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const checked: Array<string> = []
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        trigger: { holds: (event) => Effect.sync(() => checked.push(event.eventId)).pipe(Effect.as(false)) }
      })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.succeed("1 minute"))
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      yield* engine.submit(queued)
      yield* TestClock.adjust("1 minute")
      yield* until("the condition was checked", () => checked.length === 1)
      yield* until("queued events revoked", () =>
        store.newestQueued("build", running.itemKey).pipe(Effect.map(Option.isNone)))
      assert.deepStrictEqual(checked, [queued.eventId])
      assert.deepStrictEqual(yield* store.openRuns, [])
      assert.strictEqual((yield* engine.submit(queued))._tag, "Ignored", "a revoked Event stays ignored")
    }))

  it.scoped("a hanging condition check counts as true after five seconds", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      let checks = 0
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        trigger: { holds: () => Effect.sync(() => checks++).pipe(Effect.zipRight(Effect.never)) }
      })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.succeed("1 minute"))
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      yield* engine.submit(queued)
      yield* TestClock.adjust("1 minute")
      yield* until("the check started", () => checks === 1)
      yield* TestClock.adjust("4 seconds")
      yield* settle
      assert.isTrue((yield* store.getRun(runOf(queued)).pipe(Effect.either))._tag === "Left", "still checking")
      yield* TestClock.adjust("1 second")
      yield* untilState(store, runOf(queued), "Succeeded")
    }))

  it.scoped("a failing condition check counts as true", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        trigger: { holds: () => Effect.dieMessage("GitHub is down") }
      })
      const running = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(running), Script.succeed("1 minute"))
      yield* engine.submit(running)
      yield* untilState(store, runOf(running), "Running")
      const queued = submission({ number: 1, receivedAt: 2 })
      yield* engine.submit(queued)
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(queued), "Succeeded")
    }))
})
