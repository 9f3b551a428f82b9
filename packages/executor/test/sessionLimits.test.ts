import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Stream, TestClock } from "effect"
import * as DurableSession from "../src/DurableSession"
import * as LocalTransport from "../src/LocalTransport"
import { startedWith } from "./startedWith"

// Kept apart from the layer() suites: @effect/vitest's layer() reassigns the shared `it`'s methods.
describe("DurableSession limits, on the Clock", () => {
  const sessions = DurableSession.make(LocalTransport.make())
  const started = startedWith(sessions)

  it.scoped("a silent session is stalled once stall_minutes pass on the Clock", () =>
    Effect.gen(function* () {
      const { record } = yield* started({ argv: ["sleep", "100"] })
      const follower = yield* sessions
        .follow(record, { pollInterval: "1 second", stallMs: 60_000, maxAttemptMs: 600_000 })
        .pipe(Stream.runDrain, Effect.flip, Effect.fork)
      yield* TestClock.adjust("59 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(follower)), "not stalled before the limit")
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(follower)
      assert.strictEqual(error._tag, "SessionStalled")
      assert.isTrue(yield* sessions.isLive(record), "the follower reports; stopping is the caller's decision")
    }))

  it.scoped("lines the harness calls stalls are no progress, and a busy session still runs away", () =>
    Effect.gen(function* () {
      const { record } = yield* started({ argv: ["sh", "-c", "while :; do echo Reconnecting...; sleep 0.05; done"] })
      const stalled = yield* sessions
        .follow(record, { pollInterval: "1 second", stallMs: 30_000, isStallLine: (l) => l.startsWith("Reconnecting") })
        .pipe(Stream.runDrain, Effect.flip, Effect.fork)
      const runaway = yield* sessions
        .follow(record, { pollInterval: "1 second", maxAttemptMs: 45_000 })
        .pipe(Stream.runDrain, Effect.flip, Effect.fork)
      yield* TestClock.adjust("31 seconds")
      assert.strictEqual((yield* Fiber.join(stalled))._tag, "SessionStalled")
      assert.isTrue(Option.isNone(yield* Fiber.poll(runaway)))
      yield* TestClock.adjust("15 seconds")
      const error = yield* Fiber.join(runaway)
      assert.strictEqual(error._tag, "SessionRanAway")
    }))
})
