import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { InfraFailure } from "@usine/core/attempt/failure"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const s = submission({ number: 1, receivedAt: 1 })
const run = runOf(s)
const attempt = (n: number) => attemptIdOf(run, n)

/** Runs an engine until its Attempt `n` has started and `minutes` passed, then stops it as a process exit would. */
const firstEngine = (ledger: string, memory: InMemoryExecutor, n = 1, minutes = 4) =>
  Effect.scoped(Effect.gen(function*() {
    const { engine } = yield* startEngine({ ledger, executor: memory })
    yield* engine.submit(s)
    yield* until(`attempt ${n} started`, () => memory.executions.length === n)
    yield* TestClock.adjust(`${minutes} minutes`)
  }))

describe("RunEngine restart", () => {
  it.scoped("a new engine on the same ledger reattaches the live Attempt and never runs it twice", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(run, Script.succeed("10 minutes"))
      yield* firstEngine(ledger, memory)
      assert.isTrue(memory.isRunning(attempt(1)), "stopping the engine detached the session")

      const { store } = yield* startEngine({ ledger, executor: memory })
      assert.deepStrictEqual(memory.recoveries, [[], [attempt(1)]], "workspaces recovered before reconcile, live kept")
      yield* until("reattached", () => memory.reattaches.length === 1)
      yield* TestClock.adjust("6 minutes")
      yield* untilState(store, run, "Succeeded")
      assert.deepStrictEqual(memory.executions, [attempt(1)])
      assert.deepStrictEqual(memory.reattaches, [attempt(1)])
      const rows = yield* store.transcript(attempt(1))
      assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "assistant"], "no transcript row repeated")
      assert.strictEqual((yield* store.attempts(run))[0]?.session, `memory:${attempt(1)}`)
    }))

  it.scoped("the executor releases an Attempt only once the ledger holds its outcome (ADR 0110)", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(run, Script.succeed("1 minute"))
      const { engine, store } = yield* startEngine({ ledger, executor: memory })
      memory.onRelease = (a) => Effect.map(store.attempts(a.runId), (all) => all.find((x) => x.id === a.id)?.outcome?._tag)
      yield* engine.submit(s)
      yield* until("attempt 1 started", () => memory.executions.length === 1)
      yield* TestClock.adjust("2 minutes")
      yield* untilState(store, run, "Succeeded")
      yield* until("released", () => memory.releases.length === 1)
      assert.deepStrictEqual(memory.releases, [{ attemptId: attempt(1), seen: "Succeeded" }])
    }))

  it.scoped("an Attempt whose session is gone is recorded as InfraFailure and the next Attempt runs", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.script(run, Script.hang, Script.succeed())
      yield* firstEngine(ledger, memory)
      memory.markGone(attempt(1))

      const { store } = yield* startEngine({ ledger, executor: memory })
      yield* untilState(store, run, "Succeeded")
      const attempts = yield* store.attempts(run)
      const first = attempts[0]?.outcome
      assert.strictEqual(first?._tag === "Failed" && first.failure._tag, "InfraFailure")
      assert.deepStrictEqual(memory.executions, [attempt(1), attempt(2)])
      assert.deepStrictEqual(memory.reattaches, [])
    }))

  it.scoped("a gone third Attempt fails the Run", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      const infra = new InfraFailure({ reason: "reset", evidence: "" })
      memory.script(run, Script.fail(infra), Script.fail(infra), Script.hang)
      yield* Effect.scoped(Effect.gen(function*() {
        const { engine } = yield* startEngine({ ledger, executor: memory })
        yield* engine.submit(s)
        // The automatic retries wait 1 and then 4 minutes (ADR 0050).
        yield* until("attempt 1 failed", () => memory.executions.length === 1).pipe(Effect.zipRight(settle))
        yield* TestClock.adjust("1 minute")
        yield* until("attempt 2 started", () => memory.executions.length === 2).pipe(Effect.zipRight(settle))
        yield* TestClock.adjust("4 minutes")
        yield* until("attempt 3 started", () => memory.executions.length === 3)
      }))
      memory.markGone(attempt(3))

      const { store } = yield* startEngine({ ledger, executor: memory })
      yield* untilState(store, run, "Failed")
      assert.deepStrictEqual(memory.executions, [attempt(1), attempt(2), attempt(3)])
    }))

  it.scoped("a store defect is not retried by the engine (ADR 0076); the fiber stops and restarts at reconcile", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      let writes = 0
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        lifecycle: (real) => ({
          ...real,
          finishAttempt: (id, outcome) =>
            Effect.suspend(() => ++writes === 1 ? Effect.dieMessage("disk I/O error") : real.finishAttempt(id, outcome))
        })
      })
      yield* engine.submit(s)
      yield* until("first write failed", () => writes === 1)
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.strictEqual(writes, 1, "the engine retries no defect: SQLITE_BUSY is retried inside the store only")
      assert.strictEqual((yield* store.getRun(run)).state._tag, "Running", "the fiber stopped, the Run stays open")

      yield* TestClock.adjust("2 minutes") // reconcile: reattach the ended session, write again
      yield* TestClock.adjust("300 millis")
      yield* untilState(store, run, "Succeeded")
      assert.strictEqual(writes, 2)
      assert.deepStrictEqual(memory.executions, [attempt(1)])
      assert.deepStrictEqual(memory.reattaches, [attempt(1)])
    }))

  it.scoped("a restart queues the Queued Runs again, without fibers, behind the reattached Attempts", () =>
    Effect.gen(function*() {
      const ledger = yield* tempLedger
      const memory = yield* InMemoryExecutor.make
      memory.scriptOthers(() => Script.hang)
      const gated = [1, 2, 3, 4].map((n) => submission({ loop: "gated", number: n, receivedAt: n, approvalRequired: true }))
      const runs = gated.map(runOf)
      yield* Effect.scoped(Effect.gen(function*() {
        const { driver, engine, store } = yield* startEngine({ ledger, executor: memory })
        for (const s of gated) yield* engine.submit(s)
        for (const id of runs) yield* untilState(store, id, "Waiting")
        for (const id of runs) yield* engine.approve(id)
        yield* until("two queued", () => Effect.map(driver.queued, (q) => q.length === 2))
        assert.strictEqual(memory.executions.length, 2)
      }))

      const { driver, store } = yield* startEngine({ ledger, executor: memory })
      yield* until("both live Attempts reattached", () => memory.reattaches.length === 2)
      yield* until("two queued", () => Effect.map(driver.queued, (q) => q.length === 2))
      yield* settle
      assert.deepStrictEqual(yield* driver.queued, runs.slice(2))
      assert.sameMembers([...(yield* driver.fibers)], runs.slice(0, 2))
      for (const id of runs.slice(2)) assert.strictEqual((yield* store.getRun(id)).state._tag, "Queued")

      for (const [i, id] of runs.slice(0, 2).entries()) {
        memory.finish(attemptIdOf(id, 1), new AttemptSucceeded({ result: { commits: [] } }))
        yield* untilState(store, runs[i + 2]!, "Running")
      }
      yield* until("the queued Runs execute", () => memory.executions.length === 4)
      assert.deepStrictEqual(memory.executions, runs.map((id) => attemptIdOf(id, 1)))
      assert.deepStrictEqual(yield* driver.queued, [])
    }))
})
