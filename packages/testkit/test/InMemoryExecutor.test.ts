import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"
import { InfraFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { EventId } from "@usine/core/ids/EventId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Running } from "@usine/core/run/state"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { AttemptRequest } from "@usine/engine/Executor"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { settle } from "../../engine/test/support/settle"

const run = new Run({
  id: RunId("r1"),
  eventId: EventId("e1"),
  loop: "build",
  itemKey: ItemKey("i1"),
  repository: "o/r",
  generation: 0,
  state: new Running(),
  version: 1,
  task: "do it",
  agent: "codex",
  approvalRequired: false,
  receivedAt: 0,
  createdAt: 0,
  updatedAt: 0
})
const attempt = (number: number) =>
  new Attempt({ id: attemptIdOf(run.id, number), runId: run.id, step: "main", number, startedAt: 0 })

const request = (number: number, reattach: boolean, rows: Array<TranscriptEntry>, stored = 0): AttemptRequest => ({
  run,
  attempt: attempt(number),
  worker: "w1",
  reattach,
  transcriptRowsStored: stored,
  policy: {
    verify: [],
    verifyRounds: 0,
    forbiddenPaths: [],
    maxChangedFiles: undefined,
    maxAttemptMinutes: undefined,
    stallMinutes: undefined,
    kind: "issues"
  },
  onTranscript: (entries) => Effect.sync(() => void rows.push(...entries)),
  onSession: () => Effect.void
})

describe("InMemoryExecutor", () => {
  it.effect("follows its script per Attempt number, with delays on the Clock", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.script(run.id, Script.fail(new InfraFailure({ reason: "net", evidence: "" }), "2 minutes"), Script.succeed())
      const rows: Array<TranscriptEntry> = []
      const first = yield* Effect.fork(memory.executor.execute(request(1, false, rows)))
      yield* TestClock.adjust("119 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(first)))
      yield* TestClock.adjust("1 second")
      const outcome = yield* Fiber.join(first)
      assert.strictEqual(outcome._tag === "Failed" && outcome.failure._tag, "InfraFailure")
      assert.strictEqual((yield* memory.executor.execute(request(2, false, rows)))._tag, "Succeeded")
      assert.deepStrictEqual(memory.executions, [attemptIdOf(run.id, 1), attemptIdOf(run.id, 2)])
      assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "assistant", "system", "assistant"])
    }))

  it.effect("a second follower of a live session reattaches without running it again or repeating rows", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.script(run.id, Script.succeed("10 minutes"))
      const rows: Array<TranscriptEntry> = []
      const first = yield* Effect.fork(memory.executor.execute(request(1, false, rows)))
      yield* settle
      yield* Fiber.interrupt(first) // detach, as an engine shutdown does
      assert.isTrue(yield* memory.executor.isLive(attempt(1)))
      const second = yield* Effect.fork(memory.executor.execute(request(1, true, rows, rows.length)))
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual((yield* Fiber.join(second))._tag, "Succeeded")
      assert.deepStrictEqual(memory.executions, [attemptIdOf(run.id, 1)])
      assert.deepStrictEqual(memory.reattaches, [attemptIdOf(run.id, 1)])
      assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "assistant"])
    }))

  it.effect("a lost session is not live and its follower sees an InfraFailure", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.script(run.id, Script.hang)
      const follower = yield* Effect.fork(memory.executor.execute(request(1, false, [])))
      yield* settle
      memory.markGone(attempt(1).id)
      assert.isFalse(yield* memory.executor.isLive(attempt(1)))
      const outcome = yield* Fiber.join(follower)
      assert.strictEqual(outcome._tag === "Failed" && outcome.failure._tag, "InfraFailure")
      const again = yield* memory.executor.execute(request(1, true, []))
      assert.strictEqual(again._tag === "Failed" && again.failure._tag, "InfraFailure")
    }))

  it.effect("a hanging session runs until canceled; interventions reach only a running session", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      memory.script(run.id, Script.hang)
      const rows: Array<TranscriptEntry> = []
      const follower = yield* Effect.fork(memory.executor.execute(request(1, false, rows)))
      yield* TestClock.adjust("1 day")
      yield* memory.executor.intervene(attempt(1).id, "try the other test")
      yield* memory.executor.cancel(attempt(1).id)
      assert.strictEqual((yield* Fiber.join(follower))._tag, "Canceled")
      const gone = yield* memory.executor.intervene(attempt(1).id, "late").pipe(Effect.flip)
      assert.strictEqual(gone._tag, "SessionGone")
      assert.deepStrictEqual(memory.interventions, [{ attemptId: attempt(1).id, message: "try the other test" }])
      assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "operator", "assistant"])
    }))

  it.effect("reports scripted usage rows when due, before the end, once across a reattach, and the scripted result", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const usage = (n: number) => ({ inputTokens: n, outputTokens: 1, cachedInputTokens: 0 })
      memory.script(run.id, Script.succeed("10 minutes", {
        usage: [{ after: "1 minute", usage: usage(100) }, { after: "3 minutes", usage: usage(300) }, { after: "10 minutes", usage: usage(1000) }],
        result: { commits: ["abc"], pullRequestNumber: 7 }
      }))
      const rows: Array<TranscriptEntry> = []
      const first = yield* Effect.fork(memory.executor.execute(request(1, false, rows)))
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.deepStrictEqual(rows.map((r) => r.usage?.inputTokens), [undefined, 100], "the first row, at its time")
      yield* Fiber.interrupt(first)
      yield* TestClock.adjust("5 minutes")
      const second = yield* Effect.fork(memory.executor.execute(request(1, true, rows, rows.length)))
      yield* settle
      assert.deepStrictEqual(rows.map((r) => r.usage?.inputTokens), [undefined, 100, 300], "due while detached: at reattach")
      yield* TestClock.adjust("4 minutes")
      const outcome = yield* Fiber.join(second)
      assert.deepStrictEqual(outcome._tag === "Succeeded" && outcome.result, { commits: ["abc"], pullRequestNumber: 7 })
      assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "usage", "usage", "usage", "assistant"])
      assert.strictEqual(rows[3]?.usage?.inputTokens, 1000, "a row due at the end comes before the end")
    }))
})
