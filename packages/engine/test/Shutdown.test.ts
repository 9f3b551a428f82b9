import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, TestClock } from "effect"
import { Shutdown } from "@usine/engine/Shutdown"
import { settle } from "./support/settle"

/** An admitted Attempt that ends when `finish` is called. */
const admitted = Effect.gen(function*() {
  const shutdown = yield* Shutdown
  const done = yield* Deferred.make<void>()
  const fiber = yield* Effect.scoped(shutdown.admit.pipe(Effect.zipRight(Deferred.await(done)))).pipe(Effect.fork)
  yield* settle
  return { finish: Deferred.succeed(done, undefined).pipe(Effect.zipRight(Fiber.join(fiber))), fiber }
})

describe("Shutdown", () => {
  it.effect("the first request closes admission at once; the drain waits for admitted Attempts", () =>
    Effect.gen(function*() {
      const shutdown = yield* Shutdown
      const running = yield* admitted
      assert.deepStrictEqual(yield* shutdown.status, { admitting: true, admitted: 1 })
      assert.strictEqual(yield* shutdown.requestShutdown, "Draining")
      assert.deepStrictEqual(yield* shutdown.status, { admitting: false, admitted: 1 })

      const late = yield* admitted
      assert.isTrue(Option.isNone(yield* Fiber.poll(late.fiber)), "a new Attempt is not admitted")
      assert.strictEqual((yield* shutdown.status).admitted, 1)

      const drain = yield* Effect.fork(shutdown.drain())
      yield* TestClock.adjust("1 hour")
      assert.isTrue(Option.isNone(yield* Fiber.poll(drain)), "drain waits while an Attempt runs")
      yield* running.finish
      assert.strictEqual(yield* Fiber.join(drain), "Idle")
      yield* Fiber.interrupt(late.fiber)
    }).pipe(Effect.provide(Shutdown.Default)))

  it.effect("a second request ends the wait", () =>
    Effect.gen(function*() {
      const shutdown = yield* Shutdown
      const running = yield* admitted
      yield* shutdown.requestShutdown
      const drain = yield* Effect.fork(shutdown.drain())
      yield* settle
      assert.strictEqual(yield* shutdown.requestShutdown, "Stopping")
      assert.strictEqual(yield* Fiber.join(drain), "Stopped")
      assert.strictEqual((yield* shutdown.status).admitted, 1, "the Attempt was not waited for")
      yield* Fiber.interrupt(running.fiber)
      assert.strictEqual((yield* shutdown.status).admitted, 0)
    }).pipe(Effect.provide(Shutdown.Default)))

  it.effect("the wait is bounded when a bound is given", () =>
    Effect.gen(function*() {
      const shutdown = yield* Shutdown
      const running = yield* admitted
      const drain = yield* Effect.fork(shutdown.drain("30 minutes"))
      yield* TestClock.adjust("29 minutes")
      assert.isTrue(Option.isNone(yield* Fiber.poll(drain)))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Fiber.join(drain), "TimedOut")
      assert.isFalse((yield* shutdown.status).admitting, "drain closes admission when no request came first")
      yield* Fiber.interrupt(running.fiber)
    }).pipe(Effect.provide(Shutdown.Default)))

  it.effect("with nothing admitted the drain ends at once", () =>
    Effect.gen(function*() {
      const shutdown = yield* Shutdown
      assert.strictEqual(yield* shutdown.drain(), "Idle")
    }).pipe(Effect.provide(Shutdown.Default)))
})
