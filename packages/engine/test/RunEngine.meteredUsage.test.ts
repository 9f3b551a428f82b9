import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import type { LoopPoliciesData } from "@usine/engine/LoopPolicies"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const tokens = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, cachedInputTokens: 0 })
const policies = (patch: Partial<LoopPoliciesData>): LoopPoliciesData => ({ ...defaultPolicies, ...patch })

describe("RunEngine usage behind a model proxy (ADR 0086)", () => {
  it.scoped("the Run cap judges the proxy's count: a forged negative stream row does not lower it; the daily figures are the proxy's", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: policies({ loops: { build: loopPolicy({ budget: { runTokens: 1000 } }) } })
      })
      const s = submission({ number: 1, receivedAt: 1 })
      const run = runOf(s)
      memory.script(run, Script.hangWith({
        metered: true,
        usage: [
          { after: "1 minute", usage: tokens(900, 30), metered: true },
          { after: "1 minute", usage: tokens(900, 30) },
          { after: "2 minutes", usage: tokens(-4_998_200, -10) },
          { after: "3 minutes", usage: tokens(900, 30), metered: true }
        ]
      }))
      yield* engine.submit(s)
      yield* until("attempt 1 started", () => memory.executions.length === 1)
      yield* TestClock.adjust("2 minutes")
      yield* settle
      assert.strictEqual((yield* store.getRun(run)).state._tag, "Running", "930 metered is within the cap")
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, run, "Failed")
      const [attempt] = yield* store.attempts(run)
      const failure = attempt?.outcome?._tag === "Failed" ? attempt.outcome.failure : undefined
      assert.strictEqual(failure?._tag, "ChildSessionBudgetFailure")
      assert.include(failure?.reason ?? "", "1,860 tokens")
      assert.deepStrictEqual((yield* brakes.runUsage(run)).map((u) => u.usage), [tokens(1800, 60)], "the Attempt's total is the proxy's")
      const [global] = (yield* brakes.usageOfDays("1970-01-01", "1970-01-01")).filter((d) => d.scope === "global")
      assert.deepStrictEqual(global?.usage, tokens(1800, 60), "the daily figures count the proxy's figures only")
    }))

  it.scoped("without a proxy the caps judge the stream, clamped: a forged negative row lowers neither the Run's total nor the day's", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: policies({ loops: { build: loopPolicy({ budget: { runTokens: 1000 } }) } })
      })
      const s = submission({ number: 2, receivedAt: 1 })
      const run = runOf(s)
      memory.script(run, Script.hangWith({
        usage: [
          { after: "1 minute", usage: tokens(900, 30) },
          { after: "2 minutes", usage: tokens(-4_998_200, -10) },
          { after: "3 minutes", usage: tokens(-4_997_300, 20) },
          { after: "4 minutes", usage: tokens(1000, 40) }
        ]
      }))
      yield* engine.submit(s)
      yield* until("attempt 1 started", () => memory.executions.length === 1)
      yield* TestClock.adjust("3 minutes")
      yield* settle
      assert.strictEqual((yield* store.getRun(run)).state._tag, "Running")
      assert.deepStrictEqual((yield* brakes.runUsage(run)).map((u) => u.usage), [tokens(900, 30)], "the forged rows changed nothing")
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, run, "Failed")
      const [global] = (yield* brakes.usageOfDays("1970-01-01", "1970-01-01")).filter((d) => d.scope === "global")
      assert.deepStrictEqual(global?.usage, tokens(1000, 40))
    }))
})
