import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { ItemStore } from "@usine/store/ItemStore"
import { testLedger } from "./fixtures/testLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

describeEngines("ItemStore", (engine) => {
  layer(testLedger(engine))("projections and cursors", (it) => {
    it.effect("stores, replaces and lists Item projections by repository", () =>
      Effect.gen(function* () {
        const items = yield* ItemStore
        const projection = (number: number, title: string, observedAt: number) => ({
          itemKey: itemKeyOf("Acme/Widgets", number),
          repository: "Acme/Widgets",
          number,
          payload: { title, labels: ["ready"], nested: { n: number } },
          contentHash: `hash-${title}`,
          observedAt
        })
        assert.isTrue(Option.isNone(yield* items.projection(itemKeyOf("Acme/Widgets", 2))))
        yield* items.saveProjection(projection(2, "two", 1))
        yield* items.saveProjection(projection(1, "one", 1))
        yield* items.saveProjection(projection(2, "two, edited", 5))
        const stored = Option.getOrThrow(yield* items.projection(itemKeyOf("Acme/Widgets", 2)))
        assert.deepStrictEqual(stored, { ...projection(2, "two, edited", 5), repository: "acme/widgets" })
        assert.deepStrictEqual((yield* items.projections("ACME/widgets")).map((p) => p.number), [1, 2])
        assert.deepStrictEqual(yield* items.projections("other/repo"), [])
      }))

    it.effect("a re-observation with the same content hash leaves the stored row, and its time, alone", () =>
      Effect.gen(function* () {
        const items = yield* ItemStore
        const key = itemKeyOf("acme/widgets", 30)
        const base = { itemKey: key, repository: "acme/widgets", number: 30, contentHash: "h1" }
        yield* items.saveProjection({ ...base, payload: { title: "t", updatedAt: "a" }, observedAt: 10 })
        yield* items.saveProjection({ ...base, payload: { title: "t", updatedAt: "b" }, observedAt: 20 })
        assert.strictEqual(Option.getOrThrow(yield* items.projection(key)).observedAt, 10)
        yield* items.saveProjection({ ...base, contentHash: "h2", payload: { title: "u" }, observedAt: 30 })
        const stored = Option.getOrThrow(yield* items.projection(key))
        assert.deepStrictEqual([stored.observedAt, stored.payload], [30, { title: "u" }])
      }))

    it.effect("stores, replaces and clears a repository's poll cursor", () =>
      Effect.gen(function* () {
        const items = yield* ItemStore
        assert.isTrue(Option.isNone(yield* items.cursor("acme/widgets")))
        const cursor = {
          repository: "acme/widgets",
          watermark: "2026-10-16T10:00:00Z",
          etag: 'W/"abc"',
          openPullRequests: [4, 9],
          activeLoops: "review,start-dev"
        }
        yield* items.saveCursor(cursor)
        assert.deepStrictEqual(yield* items.cursor("Acme/Widgets"), Option.some(cursor))
        const empty = { repository: "acme/widgets", watermark: undefined, etag: undefined, openPullRequests: [], activeLoops: "" }
        yield* items.saveCursor(empty)
        assert.deepStrictEqual(yield* items.cursor("acme/widgets"), Option.some(empty))
        yield* items.clearCursor("acme/widgets")
        assert.isTrue(Option.isNone(yield* items.cursor("acme/widgets")))
      }))
  })
})
