import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { until } from "./support/settle"

const harvested = {
  commits: ["c0ffee"],
  branch: "usine/build/1",
  pullRequestNumber: 40,
  pullRequestUrl: "https://github.com/acme/app/pull/40"
}

describe("RunEngine: a cancel during harvest", () => {
  it.scoped("keeps the pull request the harvest opened: reported, and counted toward max_open_pull_requests", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { build: loopPolicy({ maxOpenPullRequests: 1 }) } }
      })
      const first = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(first), Script.hang)
      yield* engine.submit(first)
      yield* until("attempt 1 started", () => memory.executions.length === 1)
      // The harvest pushed and opened #40; the operator's cancel arrives before the engine hears of it.
      memory.harvest(attemptIdOf(runOf(first), 1), harvested)
      const canceled = yield* engine.cancel(runOf(first))
      assert.isTrue(canceled.canceled)
      assert.deepStrictEqual(Option.getOrUndefined(canceled.harvested), harvested)
      assert.strictEqual((yield* store.getRun(runOf(first))).state._tag, "Canceled")
      assert.deepStrictEqual(yield* brakes.openPullRequests("build"), [{ repository: "acme/app", number: 40 }])

      const second = submission({ number: 2, receivedAt: 2 })
      yield* engine.submit(second)
      yield* until("the next Run waits for #40", () =>
        Effect.map(brakes.runHold(runOf(second)), (hold) => Option.exists(hold, (h) => h.kind === "OpenPullRequests")))
      assert.strictEqual(memory.executions.length, 1)
      yield* untilState(store, runOf(second), "Pending")
    }))

  it.scoped("a cancel before any harvest reports nothing and counts nothing", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(s), Script.hang)
      yield* engine.submit(s)
      yield* until("attempt 1 started", () => memory.executions.length === 1)
      const canceled = yield* engine.cancel(runOf(s))
      assert.isTrue(Option.isNone(canceled.harvested))
      assert.deepStrictEqual(yield* brakes.openPullRequests("build"), [])
    }))
})
