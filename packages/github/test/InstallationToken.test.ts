import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref, TestClock } from "effect"
import { makeInstallationToken } from "@usine/github/InstallationToken"

describe("makeInstallationToken", () => {
  it.effect("mints once, keeps the token until the margin before expires_at, then mints again; concurrent callers share a mint", () =>
    Effect.gen(function* () {
      const mints = yield* Ref.make(0)
      const mint = Effect.gen(function* () {
        const n = yield* Ref.updateAndGet(mints, (k) => k + 1)
        yield* Effect.sleep("10 millis")
        return { token: `ghs_${n}`, expiresAtMs: (yield* TestClock.currentTimeMillis) + 60_000 }
      })
      const tokens = yield* makeInstallationToken(mint, 10_000)
      const fiber = yield* Effect.fork(Effect.all([tokens.current, tokens.current, tokens.current], { concurrency: "unbounded" }))
      yield* TestClock.adjust("10 millis")
      assert.deepStrictEqual(yield* fiber.await.pipe(Effect.flatten), ["ghs_1", "ghs_1", "ghs_1"])
      assert.strictEqual(yield* Ref.get(mints), 1)

      yield* TestClock.adjust("49 seconds")
      assert.strictEqual(yield* tokens.current, "ghs_1", "49.01 s into a 60 s token, 10 s margin: still fresh")
      yield* TestClock.adjust("1 second")
      const next = yield* Effect.fork(tokens.current)
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* next.await.pipe(Effect.flatten), "ghs_2", "within the margin: minted again before expiry")
      assert.strictEqual(yield* Ref.get(mints), 2)
    })
  )

  it.effect("a token living less than twice the margin is reused for half its life, then minted again before it expires", () =>
    Effect.gen(function* () {
      const mints = yield* Ref.make(0)
      const mint = Effect.gen(function* () {
        const n = yield* Ref.updateAndGet(mints, (k) => k + 1)
        return { token: `ghs_${n}`, expiresAtMs: (yield* TestClock.currentTimeMillis) + 4_000 }
      })
      const tokens = yield* makeInstallationToken(mint)
      assert.strictEqual(yield* tokens.current, "ghs_1")
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(yield* tokens.current, "ghs_1", "reused: a 4 s token under a 5 min margin is not minted at each call")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* tokens.current, "ghs_2", "half its life gone: minted again, 2 s before it would be refused")
      assert.strictEqual(yield* Ref.get(mints), 2)
    })
  )
})
