import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { InfraFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import type { LoopPoliciesData } from "@usine/engine/LoopPolicies"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const DAY = 86_400_000
const tokens = (input: number, output: number, costUsd?: number) => ({
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: Math.floor(input / 2),
  ...(costUsd === undefined ? {} : { costUsd })
})
const budgetFailure = (attempt: Attempt | undefined) =>
  attempt?.outcome?._tag === "Failed" && attempt.outcome.failure._tag === "ChildSessionBudgetFailure"
    ? attempt.outcome.failure
    : undefined

const policies = (patch: Partial<LoopPoliciesData>): LoopPoliciesData => ({ ...defaultPolicies, ...patch })

describe("RunEngine budgets", () => {
  it.scoped("a Run cap stops the Attempt at the usage row that takes the Run's total past it, with the figures", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: policies({
          loops: { build: loopPolicy({ budget: { runTokens: 1000 } }), pricey: loopPolicy({ budget: { runCostUsd: 1 } }) }
        })
      })
      const s = submission({ number: 1, receivedAt: 1 })
      const run = runOf(s)
      memory.script(
        run,
        Script.fail(new InfraFailure({ reason: "reset" }), "10 minutes", { usage: [{ after: "1 minute", usage: tokens(300, 100) }] }),
        Script.hangWith({
          usage: [
            { after: "1 minute", usage: tokens(200, 100) },
            { after: "2 minutes", usage: tokens(400, 200) },
            { after: "3 minutes", usage: tokens(500, 300) }
          ]
        })
      )
      yield* engine.submit(s)
      yield* until("attempt 2 started", () => memory.executions.length === 1).pipe(Effect.zipRight(TestClock.adjust("10 minutes")))
      yield* until("the automatic retry waits", () =>
        Effect.map(brakes.runHold(run), (hold) => hold._tag === "Some" && hold.value.kind === "RetryBackoff"))
      yield* TestClock.adjust("1 minute")
      yield* until("attempt 2 started", () => memory.executions.length === 2)
      yield* TestClock.adjust("2 minutes")
      yield* settle
      assert.strictEqual((yield* store.getRun(run)).state._tag, "Running", "400 + 600 is the cap, not past it")
      assert.deepStrictEqual(memory.cancels, [])
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, run, "Failed")
      const attempts = yield* store.attempts(run)
      const failure = budgetFailure(attempts[1])
      assert.deepStrictEqual([failure?.used, failure?.limit], ["1,200 tokens", "1,000 tokens"])
      assert.include(failure?.reason ?? "", "budget.run_tokens")
      yield* until("session stopped", () => memory.cancels.length === 1)
      assert.deepStrictEqual(memory.cancels, [attemptIdOf(run, 2)])
      assert.isFalse(memory.isRunning(attemptIdOf(run, 2)))
      yield* TestClock.adjust("10 minutes")
      yield* settle
      assert.strictEqual(memory.executions.length, 2, "a budget failure is not retried by itself")

      const pricey = submission({ loop: "pricey", number: 2, receivedAt: 2 })
      memory.script(runOf(pricey), Script.hangWith({
        usage: [{ after: "1 minute", usage: tokens(10, 10, 0.6) }, { after: "2 minutes", usage: tokens(20, 20, 1.25) }]
      }))
      yield* engine.submit(pricey)
      yield* until("pricey started", () => memory.executions.length === 3)
      yield* TestClock.adjust("2 minutes")
      yield* untilState(store, runOf(pricey), "Failed")
      const cost = budgetFailure((yield* store.attempts(runOf(pricey)))[0])
      assert.deepStrictEqual([cost?.used, cost?.limit], ["$1.25", "$1.00"])
    }))

  it.scoped("a Loop's daily cap holds new Attempts across a restart until the next UTC day", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      const capped = policies({ loops: { build: loopPolicy({ budget: { dailyTokens: 1000 } }), review: loopPolicy() } })
      const spender = submission({ number: 1, receivedAt: 1 })
      const next = submission({ number: 2, receivedAt: 2 })
      memory.script(runOf(spender), Script.succeed("5 minutes", { usage: [{ after: "1 minute", usage: tokens(900, 100) }] }))
      // Late in the UTC day, so the test clock walks minutes to midnight rather than a whole day.
      yield* TestClock.setTime(DAY - 20 * 60_000)

      yield* Effect.scoped(Effect.gen(function*() {
        const { brakes, engine, store } = yield* startEngine({ ledger, executor: memory, policies: capped })
        yield* engine.submit(spender)
        yield* untilState(store, runOf(spender), "Running")
        yield* TestClock.adjust("5 minutes")
        yield* untilState(store, runOf(spender), "Succeeded")
        yield* engine.submit(next)
        yield* until("next held", () => Effect.map(brakes.heldRuns(10), (held) => held.length === 1))
        const [held] = yield* brakes.heldRuns(10)
        assert.deepStrictEqual([held?.runId, held?.kind, held?.until, held?.state], [runOf(next), "DailyCap", DAY, "Pending"])
        assert.include(held?.reason ?? "", "loop build used 1,000 tokens of its daily cap of 1,000 tokens")
      }))

      const { brakes, engine, store } = yield* startEngine({ ledger, executor: memory, policies: capped })
      const review = submission({ loop: "review", number: 3, receivedAt: 3 })
      yield* engine.submit(review)
      yield* untilState(store, runOf(review), "Succeeded")
      yield* TestClock.adjust(DAY - 1 - (yield* TestClock.currentTimeMillis))
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(next))).state._tag, "Pending", "the restarted engine still holds it")
      assert.deepStrictEqual(memory.executions, [attemptIdOf(runOf(spender), 1), attemptIdOf(runOf(review), 1)])
      yield* TestClock.adjust(1)
      yield* untilState(store, runOf(next), "Succeeded")
      assert.deepStrictEqual(yield* brakes.heldRuns(10), [], "the hold is gone with the day")
    }))

  it.scoped("an operator raise lets a held Run go at once; the daemon's cap counts every Loop", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: policies({ loops: { build: loopPolicy(), review: loopPolicy({ budget: { dailyTokens: 5000 } }) }, budget: { dailyTokens: 1000 } })
      })
      const spender = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(spender), Script.succeed("2 minutes", { usage: [{ after: "1 minute", usage: tokens(1000, 200) }] }))
      yield* engine.submit(spender)
      yield* untilState(store, runOf(spender), "Running")
      yield* TestClock.adjust("2 minutes")
      yield* untilState(store, runOf(spender), "Succeeded")

      const other = submission({ loop: "review", number: 2, receivedAt: 2 })
      yield* engine.submit(other)
      yield* until("held by the daemon's cap", () => Effect.map(brakes.heldRuns(10), (held) => held.length === 1))
      assert.include((yield* brakes.heldRuns(10))[0]?.reason ?? "", "the daemon used 1,200 tokens of its daily cap of 1,000 tokens")

      const low = yield* Effect.flip(engine.raiseCap(undefined, { tokens: 900 }))
      assert.strictEqual(low._tag, "CapRaiseTooLow")
      const none = yield* Effect.flip(engine.raiseCap("build", { tokens: 9000 }))
      assert.strictEqual(none._tag, "DailyCapNotSet")
      const raised = yield* engine.raiseCap(undefined, { tokens: 2000 })
      assert.deepStrictEqual([raised.day, raised.tokens], ["1970-01-01", 2000])
      yield* untilState(store, runOf(other), "Succeeded")
      const again = yield* engine.raiseCap(undefined, { tokens: 2000 })
      assert.strictEqual(again.tokens, 2000, "setting the same figure again changes nothing")
    }))
})
