import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { InMemoryExecutor } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle } from "./support/settle"
import type { RunLedger } from "@usine/testkit/runLedger"

const policies = { ...defaultPolicies, loops: { gated: loopPolicy({ approvalRequired: true, approvalTimeoutMinutes: 1 }) } }
const s = submission({ loop: "gated", number: 1, receivedAt: 1 })
const run = runOf(s)

const stateOf = (store: RunLedger) => Effect.map(store.getRun(run), (r) => r.state)

describe("RunEngine approval timer", () => {
  it.scoped("approval_timeout: 1 cancels the Run at the minute, not at the next reconcile", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory, policies })
      yield* engine.submit(s)
      yield* untilState(store, run, "Waiting")
      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.strictEqual((yield* stateOf(store))._tag, "Waiting")
      yield* TestClock.adjust("1 second")
      yield* untilState(store, run, "Canceled")
      const state = yield* stateOf(store)
      assert.strictEqual(state._tag === "Canceled" && state.reason._tag, "ApprovalTimedOut")
      assert.deepStrictEqual(memory.executions, [], "an expired Run never ran")
    }))

  it.scoped("the deadline survives a restart: a new engine cancels at the same minute, from the ledger", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine, store } = yield* startEngine({ ledger, executor: memory, policies })
        yield* engine.submit(s)
        yield* untilState(store, run, "Waiting")
        yield* TestClock.adjust("30 seconds")
      }))
      yield* TestClock.adjust("20 seconds") // the daemon is down
      const { store } = yield* startEngine({ ledger, executor: memory, policies })
      yield* TestClock.adjust("9 seconds")
      yield* settle
      assert.strictEqual((yield* stateOf(store))._tag, "Waiting", "59 s after it began waiting")
      yield* TestClock.adjust("1 second")
      yield* untilState(store, run, "Canceled")
    }))

  it.scoped("a deadline that passed while the daemon was down cancels at start", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine, store } = yield* startEngine({ ledger, executor: memory, policies })
        yield* engine.submit(s)
        yield* untilState(store, run, "Waiting")
      }))
      yield* TestClock.adjust("5 minutes")
      const { store } = yield* startEngine({ ledger, executor: memory, policies })
      yield* untilState(store, run, "Canceled")
    }))

  it.scoped("a Run parked while the timer sleeps toward a later deadline is canceled at its own; an approved one is not", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: {
          ...defaultPolicies,
          loops: {
            gated: loopPolicy({ approvalRequired: true, approvalTimeoutMinutes: 1 }),
            slow: loopPolicy({ approvalRequired: true, approvalTimeoutMinutes: 30 })
          }
        }
      })
      const slow = submission({ loop: "slow", number: 2, receivedAt: 1 })
      yield* engine.submit(slow)
      yield* untilState(store, runOf(slow), "Waiting")
      yield* TestClock.adjust("10 seconds")
      yield* engine.submit(s)
      yield* untilState(store, run, "Waiting")
      const approved = submission({ loop: "gated", number: 3, receivedAt: 2 })
      yield* engine.submit(approved)
      yield* untilState(store, runOf(approved), "Waiting")
      yield* engine.approve(runOf(approved))
      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.strictEqual((yield* stateOf(store))._tag, "Waiting")
      yield* TestClock.adjust("1 second")
      yield* untilState(store, run, "Canceled")
      yield* untilState(store, runOf(approved), "Succeeded")
      assert.strictEqual((yield* store.getRun(runOf(slow))).state._tag, "Waiting")
      yield* TestClock.adjust("29 minutes")
      yield* untilState(store, runOf(slow), "Canceled")
    }))
})
