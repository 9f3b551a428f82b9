import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { makeTranscriptCursor } from "../../src/WorkerExecutor/TranscriptCursor"
import { makeRedactor } from "@usine/core/text/Redactor"

const row = (i: number): TranscriptEntry => ({ kind: "assistant", text: `row ${i}`, at: i })

/** Emits `rows` in batches of the given sizes (the last batch takes the rest). */
const replay = (cursor: ReturnType<typeof makeTranscriptCursor>, rows: ReadonlyArray<TranscriptEntry>, sizes: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    let at = 0
    for (const size of sizes) {
      yield* cursor.emit(rows.slice(at, at + size))
      at += size
    }
    yield* cursor.emit(rows.slice(at))
  })

describe("TranscriptCursor", () => {
  it.effect("delivers exactly the rows after those stored, however the replay is batched, and again after a rewind", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 0, max: 40 }),
          fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 12 }),
          fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 12 }),
          (total, storedRaw, first, second) => {
            const rows = Array.from({ length: total }, (_, i) => row(i))
            const stored = Math.min(storedRaw, total)
            const delivered: Array<TranscriptEntry> = rows.slice(0, stored)
            const cursor = makeTranscriptCursor({
              delivered: stored,
              redactor: makeRedactor(),
              deliver: (batch) => Effect.sync(() => void delivered.push(...batch))
            })
            Effect.runSync(replay(cursor, rows, first))
            assert.isFalse(cursor.replaying())
            cursor.rewind()
            Effect.runSync(replay(cursor, rows, second))
            assert.deepStrictEqual(delivered, rows)
          }
        )
      )
    ))

  it.effect("redacts what it delivers, never what it counts", () =>
    Effect.gen(function* () {
      const out: Array<TranscriptEntry> = []
      const cursor = makeTranscriptCursor({
        delivered: 1,
        redactor: makeRedactor(["super-secret-token"]),
        deliver: (batch) => Effect.sync(() => void out.push(...batch))
      })
      yield* cursor.emit([row(0), { kind: "assistant", text: "found super-secret-token", at: 1 }])
      assert.deepStrictEqual(out.map((r) => r.text), ["found [REDACTED:secret]"])
    }))
})
