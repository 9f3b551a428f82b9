import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure, InfraFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const infra = new InfraFailure({ reason: "connection reset", evidence: "" })
const failureOf = (attempt: Attempt) =>
  attempt.outcome?._tag === "Failed" ? attempt.outcome.failure._tag : attempt.outcome?._tag

describe("RunEngine retries and timeouts", () => {
  it.scoped("InfraFailure retries wait 1 then 4 minutes and stop after Attempt 3, while operator retries go on at once", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1 })
      const run = runOf(s)
      memory.script(run, Script.fail(infra), Script.fail(infra), Script.fail(infra), Script.fail(infra), Script.succeed())
      yield* engine.submit(s)
      yield* until("attempt 1 failed and the retry waits", () =>
        Effect.map(brakes.runHold(run), (hold) => hold._tag === "Some" && hold.value.kind === "RetryBackoff"))
      const hold = yield* brakes.runHold(run)
      assert.strictEqual(hold._tag === "Some" && hold.value.until, 60_000)
      assert.match(hold._tag === "Some" ? hold.value.reason : "", /^retrying at 1970-01-01T00:01:00\.000Z after Attempt 1/)
      assert.deepStrictEqual((yield* brakes.heldRuns(10)).map((h) => h.kind), ["RetryBackoff"], "Needs you lists it")

      yield* TestClock.adjust("59 seconds")
      yield* settle
      assert.strictEqual(memory.executions.length, 1, "no Attempt before the backoff ends")
      yield* TestClock.adjust("1 second")
      yield* until("attempt 2 ran", () => memory.executions.length === 2)
      yield* until("attempt 2 failed and the retry waits", () =>
        Effect.map(brakes.runHold(run), (hold) => hold._tag === "Some" && hold.value.until === 60_000 + 240_000))
      yield* TestClock.adjust("3 minutes")
      yield* settle
      assert.strictEqual(memory.executions.length, 2, "the second backoff is 4 minutes")
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, run, "Failed")
      assert.deepStrictEqual((yield* store.attempts(run)).map(failureOf), ["InfraFailure", "InfraFailure", "InfraFailure"])
      assert.deepStrictEqual((yield* store.attempts(run)).map((a) => a.startedAt), [0, 60_000, 300_000])

      yield* engine.retry(run)
      yield* untilState(store, run, "Failed")
      assert.strictEqual((yield* store.attempts(run)).length, 4, "after an operator retry past 3, no auto-retry")

      yield* engine.retry(run)
      yield* untilState(store, run, "Succeeded")
      assert.deepStrictEqual(memory.executions, [1, 2, 3, 4, 5].map((n) => attemptIdOf(run, n)))
      assert.deepStrictEqual((yield* store.attempts(run)).slice(3).map((a) => a.startedAt), [300_000, 300_000], "operator retries do not wait")
      const transitions = (yield* store.transitions(run)).map((t) => `${t.from ?? ""}>${t.to}`)
      assert.deepStrictEqual(transitions, [
        ">Pending",
        "Pending>Running",
        "Running>Failed",
        "Failed>Running",
        "Running>Failed",
        "Failed>Running",
        "Running>Succeeded"
      ])
    }))

  it.scoped("a restarted daemon keeps the retry's wait, and a drain does not wait for it", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      const s = submission({ number: 1, receivedAt: 1 })
      const run = runOf(s)
      memory.script(run, Script.fail(infra), Script.succeed())
      yield* Effect.scoped(Effect.gen(function*() {
        const { brakes, engine } = yield* startEngine({ ledger, executor: memory })
        yield* engine.submit(s)
        yield* until("the retry waits", () =>
          Effect.map(brakes.runHold(run), (hold) => hold._tag === "Some" && hold.value.kind === "RetryBackoff"))
        yield* engine.requestShutdown
        assert.strictEqual(yield* engine.drain(), "Idle")
      }))
      yield* TestClock.adjust("30 seconds")
      const { store } = yield* startEngine({ ledger, executor: memory })
      yield* settle
      assert.strictEqual(memory.executions.length, 1, "the new daemon waits out the rest of the backoff")
      yield* TestClock.adjust("30 seconds")
      yield* untilState(store, run, "Succeeded")
      assert.deepStrictEqual((yield* store.attempts(run)).map((a) => a.startedAt), [0, 60_000])
    }))

  it.scoped("only an InfraFailure retries by itself", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(s), Script.fail(new AgentFailure({ reason: "tests kept failing", evidence: "" })))
      yield* engine.submit(s)
      yield* untilState(store, runOf(s), "Failed")
      assert.strictEqual(memory.executions.length, 1)
      const resolved = yield* engine.resolveFailure(runOf(s))
      assert.strictEqual(resolved.resolvedFailureAttemptId, attemptIdOf(runOf(s), 1))
      assert.strictEqual(resolved.state._tag, "Failed")
    }))

  it.scoped("a Loop's retry_backoff replaces the default waits; an empty one retries at once", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: {
          ...defaultPolicies,
          loops: { build: loopPolicy({ retryBackoffMs: [5_000] }), review: loopPolicy({ retryBackoffMs: [] }) }
        }
      })
      const paced = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(paced), Script.fail(infra), Script.fail(infra), Script.succeed())
      yield* engine.submit(paced)
      yield* until("attempt 1 failed and the retry waits", () =>
        Effect.map(brakes.runHold(runOf(paced)), (hold) => hold._tag === "Some" && hold.value.until === 5_000))
      yield* TestClock.adjust("5 seconds")
      yield* until("attempt 2 failed and waits the last backoff again", () =>
        Effect.map(brakes.runHold(runOf(paced)), (hold) => hold._tag === "Some" && hold.value.until === 10_000))
      yield* TestClock.adjust("5 seconds")
      yield* untilState(store, runOf(paced), "Succeeded")
      assert.deepStrictEqual((yield* store.attempts(runOf(paced))).map((a) => a.startedAt), [0, 5_000, 10_000])

      const eager = submission({ number: 2, receivedAt: 2, loop: "review" })
      memory.script(runOf(eager), Script.fail(infra), Script.succeed())
      yield* engine.submit(eager)
      yield* untilState(store, runOf(eager), "Succeeded")
      assert.deepStrictEqual((yield* store.attempts(runOf(eager))).map((a) => a.startedAt), [10_000, 10_000], "no wait")
    }))

  it.scoped("an InfraFailure with retryAt retries no sooner, in a fresh slot", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const s = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(s), Script.fail(new InfraFailure({ reason: "quota", evidence: "", retryAt: 3_600_000 })), Script.succeed())
      yield* engine.submit(s)
      yield* until("first attempt ran", () => memory.executions.length === 1)
      yield* TestClock.adjust("59 minutes")
      yield* settle
      assert.strictEqual(memory.executions.length, 1)
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(s), "Succeeded")
    }))

  it.scoped("max_attempt_minutes ends the Attempt as RunawayFailure and stops the session", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { build: loopPolicy({ maxAttemptMinutes: 30 }) } }
      })
      const s = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(s), Script.hang)
      yield* engine.submit(s)
      yield* untilState(store, runOf(s), "Running")
      yield* TestClock.adjust("29 minutes")
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(s))).state._tag, "Running")
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(s), "Failed")
      const [attempt] = yield* store.attempts(runOf(s))
      const outcome = attempt?.outcome
      assert.strictEqual(outcome?._tag === "Failed" && outcome.failure._tag, "RunawayFailure")
      if (outcome?._tag === "Failed" && outcome.failure._tag === "RunawayFailure") assert.strictEqual(outcome.failure.minutes, 30)
      yield* until("session canceled", () => memory.cancels.length === 1)
      assert.isFalse(memory.isRunning(attemptIdOf(runOf(s), 1)))
    }))
})
