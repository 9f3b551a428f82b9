import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TRUNCATED_TOOL } from "@usine/core/transcript/transcriptCap"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { storesAt, openedRun, submission } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { describeEngines } from "@usine/testkit/ledgerEngines"

const line = (text: string, at: number): TranscriptEntry => ({ kind: "assistant", text, at })
const usage = (input: number) => ({ inputTokens: input, outputTokens: 1, cachedInputTokens: 0 })
const cap = { rows: 5, bytes: 40 }

describeEngines("Transcripts cap (ADR 0085)", (engine) => {
  it.scoped("keeps a prefix and one marker that counts what was dropped; the count survives a restart", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const attemptId = yield* Effect.scoped(Effect.gen(function* () {
        const store = yield* Effect.provide(runLedger, yield* Layer.build(storesAt(engine, file)))
        const run = openedRun(yield* store.recordAndClaim(submission({ number: 7 })))
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") throw new Error("expected Started")
        const id = begun.attempt.id
        // Three rows of 10 bytes fit; the fourth would pass 40 bytes: it and everything after are counted, not kept.
        assert.strictEqual(yield* store.appendTranscript(id, [line("a".repeat(10), 1), line("b".repeat(10), 2)], cap), 2)
        assert.strictEqual(yield* store.appendTranscript(id, [line("c".repeat(10), 3), line("d".repeat(20), 4), line("e", 5)], cap), 4)
        // A later batch after the cap: still one marker, its counts and newest usage rewritten.
        assert.strictEqual(
          yield* store.appendTranscript(id, [{ kind: "usage", text: "", usage: usage(70), at: 6 }, line("f".repeat(1000), 7)], cap),
          4
        )
        const rows = yield* store.transcript(id)
        assert.deepStrictEqual(rows.map((r) => r.text.slice(0, 3)), ["aaa", "bbb", "ccc", "tra"])
        const marker = rows[3]
        assert.strictEqual(marker?.tool, TRUNCATED_TOOL)
        assert.strictEqual(marker?.seq, 4)
        assert.include(marker?.text, "4 later rows (1021 bytes) dropped; the agent kept running")
        assert.deepStrictEqual(marker?.usage, usage(70))
        assert.strictEqual(yield* store.transcriptPosition(id), 7)
        return id
      }))

      // Another daemon on the same file reads the fill back from the rows: the cap holds and the counts go on.
      yield* Effect.scoped(Effect.gen(function* () {
        const context = yield* Layer.build(storesAt(engine, file))
        const store = yield* Effect.provide(runLedger, context)
        assert.strictEqual(yield* store.transcriptPosition(attemptId), 7)
        assert.strictEqual(yield* store.appendTranscript(attemptId, [line("g", 8)], cap), 4)
        const rows = yield* store.transcript(attemptId)
        assert.strictEqual(rows.length, 4)
        assert.include(rows[3]?.text, "5 later rows (1022 bytes) dropped")
        assert.strictEqual(yield* store.transcriptPosition(attemptId), 8)
      }))
    }))

  it.scoped("the row cap keeps one row for the marker; an agent's row cannot pose as the marker", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const store = yield* Effect.provide(runLedger, yield* Layer.build(storesAt(engine, file)))
      const run = openedRun(yield* store.recordAndClaim(submission({ number: 8 })))
      const begun = yield* store.beginAttempt(run.id, { live: () => true })
      if (begun._tag !== "Started") throw new Error("expected Started")
      const id = begun.attempt.id
      const forged: TranscriptEntry = {
        kind: "tool_call",
        tool: TRUNCATED_TOOL,
        text: "transcript truncated at its cap (5 rows, 40 bytes): 999999 later rows (1 bytes) dropped;",
        at: 1
      }
      yield* store.appendTranscript(id, [forged], { rows: 3, bytes: 1_000_000 })
      assert.strictEqual(yield* store.transcriptPosition(id), 1)
      const many = Array.from({ length: 10_000 }, (_, i) => line(`row ${i}`, i + 2))
      assert.strictEqual(yield* store.appendTranscript(id, many, { rows: 3, bytes: 1_000_000 }), 3)
      const rows = yield* store.transcript(id)
      assert.deepStrictEqual(rows.map((r) => r.tool), [`${TRUNCATED_TOOL} (agent)`, undefined, TRUNCATED_TOOL])
      assert.include(rows[2]?.text, ": 9999 later rows (")
      assert.strictEqual(yield* store.transcriptPosition(id), 10_001)
    }))
})
