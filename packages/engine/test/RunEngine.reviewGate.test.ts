import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle } from "./support/settle"

const policies = { ...defaultPolicies, loops: { gated: loopPolicy({ approvalTimeoutMinutes: 1 }) } }
const heldResult = (n: number) => ({ commits: ["c"], held: { worker: "w1", head: `head${n}`, ref: `refs/usine/salvage/x/${n}` } })

describe("RunEngine at the pull-request gate", () => {
  it.scoped("a held Attempt parks the Run with no fiber; Request changes, then Approve PR, reach the next Attempts; a restart keeps it parked", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      const s = submission({ loop: "gated", number: 1, receivedAt: 1 })
      const run = runOf(s)
      memory.script(run, Script.succeed(undefined, { result: heldResult(1) }), Script.succeed(undefined, { result: heldResult(2) }), Script.succeed())
      yield* Effect.scoped(Effect.gen(function*() {
        const { driver, engine, store } = yield* startEngine({ ledger, executor: memory, policies: { ...policies, loops: { gated: loopPolicy() } } })
        yield* engine.submit(s)
        yield* untilState(store, run, "Reviewing")
        yield* settle
        assert.deepStrictEqual(yield* driver.fibers, [], "no fiber for a Run at the gate")
        yield* engine.requestChanges(run, "add a test")
        yield* untilState(store, run, "Reviewing")
        yield* settle
        assert.strictEqual((yield* store.attempts(run)).length, 2)
        assert.deepStrictEqual(memory.requests.map((r) => r.review?._tag), [undefined, "Changes"])
      }))
      // A restart: the Run stays parked and no Attempt starts.
      const { engine, store } = yield* startEngine({ ledger, executor: memory, policies: { ...policies, loops: { gated: loopPolicy() } } })
      yield* settle
      assert.strictEqual((yield* store.getRun(run)).state._tag, "Reviewing")
      assert.strictEqual(memory.requests.length, 2)
      yield* engine.approvePullRequest(run)
      yield* untilState(store, run, "Succeeded")
      assert.deepStrictEqual(memory.requests.map((r) => r.review?._tag), [undefined, "Changes", "Publish"])
      assert.deepStrictEqual(memory.salvagedHeld, [])
    }))

  it.scoped("approval_timeout cancels a Run at the gate at the minute and salvages its held work; Reject does the same", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const timed = submission({ loop: "gated", number: 2, receivedAt: 1 })
      const rejected = submission({ loop: "gated", number: 3, receivedAt: 2 })
      memory.script(runOf(timed), Script.succeed(undefined, { result: heldResult(1) }))
      memory.script(runOf(rejected), Script.succeed(undefined, { result: heldResult(1) }))
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory, policies })
      yield* engine.submit(timed)
      yield* untilState(store, runOf(timed), "Reviewing")
      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(timed))).state._tag, "Reviewing")
      yield* TestClock.adjust("1 second")
      yield* untilState(store, runOf(timed), "Canceled")
      const state = (yield* store.getRun(runOf(timed))).state
      assert.strictEqual(state._tag === "Canceled" && state.reason._tag, "ApprovalTimedOut")
      assert.deepStrictEqual(memory.salvagedHeld, [`usine/salvage/${runOf(timed)}/1`])

      yield* engine.submit(rejected)
      yield* untilState(store, runOf(rejected), "Reviewing")
      const canceled = yield* engine.cancel(runOf(rejected))
      assert.deepStrictEqual(canceled.salvaged._tag === "Some" ? canceled.salvaged.value : "", `usine/salvage/${runOf(rejected)}/1`)
      assert.strictEqual(memory.salvagedHeld.length, 2)
    }))
})
