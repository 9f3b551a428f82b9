import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { Run } from "@usine/core/run/Run"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 60_000
const verifyPolicy = policy({ verify: ["grep -q fixed status.txt"], verifyRounds: 2 })

/** Rows without their times, the Run's own id and pull request number, to compare two Runs' transcripts. */
const normalized = (rows: ReadonlyArray<TranscriptEntry>, run: Run) =>
  rows.map((row) => `${row.kind}: ${row.text.replaceAll(run.id.slice(0, 8), "RUN").replace(/at [0-9a-f]{8} /, "at SHA ").replace(/#\d+/g, "#N")}`)

describe("WorkerExecutor reattach", () => {
  it.scopedLive(
    "detached at any step and followed again by another daemon, an Attempt's transcript is the one it would have had uninterrupted",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const reference = makeRun("fix-after-feedback")
        const whole = recorder()
        const uninterrupted = yield* t.executor.execute(whole.request(reference, makeAttempt(reference, 1), verifyPolicy))
        assert.strictEqual(uninterrupted._tag, "Succeeded")
        const expected = normalized(whole.rows, reference)

        const detachPoints: ReadonlyArray<(row: TranscriptEntry) => boolean> = [
          (row) => row.text === "agent turn 1 started",
          (row) => row.kind === "verify",
          (row) => row.text === "agent turn 2 started with the verification output"
        ]
        for (const detachAt of detachPoints) {
          const run = makeRun("fix-after-feedback")
          const attempt = makeAttempt(run, 1)
          const log = recorder()
          const reached = yield* Deferred.make<void>()
          const first = log.request(run, attempt, verifyPolicy)
          const fiber = yield* Effect.fork(
            t.executor.execute({
              ...first,
              onTranscript: (rows) =>
                Effect.zipRight(first.onTranscript(rows), rows.some(detachAt) ? Deferred.succeed(reached, undefined) : Effect.void)
            })
          )
          yield* Deferred.await(reached)
          yield* Fiber.interrupt(fiber)
          const next = (yield* t.daemon).executor
          assert.isTrue(yield* next.isLive(attempt))
          const outcome = yield* next.execute(log.request(run, attempt, verifyPolicy, true))
          assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
          assert.deepStrictEqual(normalized(log.rows, run), expected)
        }
        assert.strictEqual((yield* t.pulls).length, 1 + detachPoints.length)
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "an operator message reaches the agent, appears once in the transcript across a reattach, and a finished session refuses more",
    () =>
      Effect.gen(function* () {
        const gate = path.join(yield* scopedTempDir("usine-gate-"), "go")
        const slow = scriptedAgent("slow", { LINES_TOTAL: "16", LINE_DELAY: "0.05", GATE: gate })
        const t = yield* setup({ agents: { slow } })
        const run = makeRun("slow")
        const attempt = makeAttempt(run, 1)
        const log = recorder()
        const fiber = yield* Effect.fork(t.executor.execute(log.request(run, attempt, policy())))
        const said = () => log.rows.filter((row) => row.kind === "assistant").length
        while (said() < 3) yield* Effect.sleep("20 millis")
        yield* t.executor.intervene(attempt.id, "please also update the README")
        while (!log.rows.some((row) => row.kind === "operator") || said() < 8) yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(fiber)
        fs.writeFileSync(gate, "")

        const outcome = yield* t.executor.execute(log.request(run, attempt, policy(), true))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        const operator = log.rows.filter((row) => row.kind === "operator")
        assert.deepStrictEqual(operator.map((row) => row.text), ["please also update the README"])
        assert.deepStrictEqual(log.rows.filter((row) => row.kind === "assistant").map((row) => row.text), [
          ...Array.from({ length: 16 }, (_, i) => `line ${i + 1}`),
          "inbox: please also update the README"
        ])
        const refused = yield* t.executor.intervene(attempt.id, "too late").pipe(Effect.flip)
        assert.strictEqual(refused._tag, "SessionGone")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
