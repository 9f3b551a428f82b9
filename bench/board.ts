import { Effect } from "effect"
import { attemptIdOf, parseAttemptId } from "@usine/core/ids/AttemptId"
import { runIdOf } from "@usine/core/ids/RunId"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { type BenchTarget, emitReport } from "./BenchReport"
import { boardWorld } from "./board/boardWorld"
import { latency, REQUESTS, WARMUP } from "./board/latency"
import { OPEN_MIX, seededLedger } from "./seededLedger"
import { pairSubmission, SEED_EPOCH } from "./seedLedger"
import { sizesFromArgs } from "./sizesFromArgs"
import * as Sql from "@usine/store/Sql"

/** Runs whose pages are requested, each with a transcript of TRANSCRIPT rows. */
const SAMPLED_RUNS = 20
const TRANSCRIPT = 300

const transcript = (at: number): ReadonlyArray<TranscriptEntry> =>
  Array.from({ length: TRANSCRIPT }, (_, i) =>
    i % 3 === 0
      ? { kind: "tool_call", tool: "shell", text: `rg -n "reconcile" packages/engine/src # step ${i}`, at: at + i }
      : i % 3 === 1
      ? { kind: "tool_result", tool: "shell", text: `packages/engine/src/RunEngine.ts:${i}: reconcile`.repeat(4), at: at + i }
      : { kind: "assistant", text: `I will change the reconcile loop next (${i}). `.repeat(6), at: at + i })

/** A diff of DIFF_FILES files of DIFF_LINES added lines each, as an agent's change would be held for review. */
const DIFF_FILES = 10
const DIFF_LINES = 60
const heldPatch = (k: number) =>
  Array.from({ length: DIFF_FILES }, (_, f) =>
    [
      `diff --git a/src/module${f}.ts b/src/module${f}.ts`,
      "new file mode 100644",
      "--- /dev/null",
      `+++ b/src/module${f}.ts`,
      `@@ -0,0 +1,${DIFF_LINES} @@`,
      ...Array.from({ length: DIFF_LINES }, (_, l) => `+export const value${k}_${f}_${l} = (input: number) => input * ${l} + ${f}`)
    ].join("\n")).join("\n") + "\n"

const measure = (events: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { file } = yield* seededLedger(events)
    const started = performance.now()
    const { memory, server, store } = yield* boardWorld(Sql.layer(file))
    const startupMs = performance.now() - started
    const runs = Array.from({ length: SAMPLED_RUNS }, (_, k) => {
      const i = Math.floor((k * (events - 4)) / SAMPLED_RUNS)
      return runIdOf(pairSubmission(i >> 1, i & 1, SEED_EPOCH + i * 1000).eventId)
    })
    for (const runId of runs) yield* store.appendTranscript(attemptIdOf(runId, 1), transcript(SEED_EPOCH))
    while (memory.executions.length < OPEN_MIX.running) yield* Effect.sleep("50 millis")
    // Running Runs' open Attempts hold a diff each, as at the review gate: the Run page renders it.
    const withDiff = memory.executions.slice(0, SAMPLED_RUNS)
    for (const [k, attemptId] of withDiff.entries()) yield* store.recordPatch(attemptId, { text: heldPatch(k), cut: false })
    const diffRuns = withDiff.map((attemptId) => parseAttemptId(attemptId).runId)
    const origin = server.origin
    const pages = [
      { name: "Runs", page: ["/runs"], api: ["/api/runs"] },
      { name: "Runs, state Failed", page: ["/runs?state=Failed"], api: ["/api/runs?state=Failed"] },
      { name: "Run (300 transcript rows)", page: runs.map((id) => `/runs/${id}`), api: runs.map((id) => `/api/runs/${id}`) },
      {
        name: `Run (diff of ${DIFF_FILES * DIFF_LINES} lines)`,
        page: diffRuns.map((id) => `/runs/${id}`),
        api: diffRuns.map((id) => `/api/runs/${id}`)
      },
      { name: "Needs you", page: ["/"], api: ["/api/needs-you"] },
      { name: "Board (kanban)", page: ["/board"], api: ["/api/board"] },
      { name: "Usage (charts)", page: ["/usage"], api: ["/api/usage"] },
      { name: "Loops", page: ["/loops"], api: ["/api/loops"] },
      { name: "Audit", page: ["/audit"], api: ["/api/audit"] }
    ]
    const rows = []
    for (const p of pages) {
      rows.push({ events, name: p.name, kind: "page", ...(yield* latency(origin, p.page, false)) })
      rows.push({ events, name: p.name, kind: "JSON", ...(yield* latency(origin, p.api, true)) })
    }
    return { events, startupMs, rows }
  }))

const program = Effect.gen(function*() {
  const results = []
  for (const events of sizesFromArgs([10_000, 100_000])) {
    process.stderr.write(`board: ${events} Runs\n`)
    results.push(yield* measure(events))
  }
  const largest = results.at(-1)!
  const targets: Array<BenchTarget> = largest.rows.map((r) => ({
    name: `${r.name} (${r.kind}) at ${largest.events.toLocaleString("en-US")} Runs`,
    target: "median < 100 ms",
    measured: `${r.median.toFixed(1)} ms (p99 ${r.p99.toFixed(1)})`,
    met: r.median < 100
  }))
  emitReport({
    bench: "board",
    tables: [{
      title: `Board latency (${REQUESTS} sequential GETs each on 127.0.0.1 after ${WARMUP} warm-up; pages of 50 Runs)`,
      columns: ["closed Runs in ledger", "page", "kind", "median ms", "p99 ms", "KB"],
      rows: results.flatMap((r) => r.rows.map((row) => [row.events, row.name, row.kind, row.median, row.p99, row.kb]))
    }, {
      title: "Board startup (ledger lock, migrations, engine's first reconcile, server listening)",
      columns: ["closed Runs in ledger", "startup ms"],
      rows: results.map((r) => [r.events, r.startupMs])
    }],
    targets,
    notes: [
      `every ledger also holds ${OPEN_MIX.waiting + OPEN_MIX.queued + OPEN_MIX.running} open Runs (Waiting, Queued, Running) and one closed Run in twenty is Failed`,
      "the RunEngine runs in the same process, as in the daemon; latency is measured by the client, to the last byte"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
