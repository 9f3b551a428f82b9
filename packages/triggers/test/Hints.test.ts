import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HINT_CAPACITY, Hints } from "@usine/triggers/Hints"

const hint = (number: number) => ({ repository: "acme/widgets", number })

describe("Hints", () => {
  it.effect("holds 128 entries and drops the rest", () =>
    Effect.gen(function* () {
      const hints = yield* Hints
      const offers = yield* Effect.forEach(Array.from({ length: HINT_CAPACITY + 2 }, (_, i) => hint(i + 1)), hints.offer)
      assert.strictEqual(offers.filter((o) => o === "Queued").length, 128)
      assert.deepStrictEqual(offers.slice(-2), ["Dropped", "Dropped"])
      assert.strictEqual(yield* hints.size, 128)
      assert.deepStrictEqual(yield* hints.take, hint(1))
      assert.strictEqual(yield* hints.offer(hint(129)), "Queued", "a dropped Hint is not remembered as pending")
    }).pipe(Effect.provide(Hints.Default))
  )

  it.effect("merges a duplicate of a pending Hint, and queues it again once taken", () =>
    Effect.gen(function* () {
      const hints = yield* Hints
      assert.strictEqual(yield* hints.offer(hint(7)), "Queued")
      assert.strictEqual(yield* hints.offer({ repository: "ACME/Widgets", number: 7 }), "Merged")
      assert.strictEqual(yield* hints.offer(hint(8)), "Queued")
      assert.strictEqual(yield* hints.size, 2)
      assert.deepStrictEqual(yield* hints.take, hint(7))
      assert.strictEqual(yield* hints.offer(hint(7)), "Queued")
      assert.strictEqual(yield* hints.offer(hint(8)), "Merged")
    }).pipe(Effect.provide(Hints.Default))
  )
})
