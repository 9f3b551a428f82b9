import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { memoryAfterGc } from "../memoryAfterGc"
import { pollUntil } from "../pollUntil"
import { pairSubmission } from "../seedLedger"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { startBenchEngine } from "./benchEngine"
import type { RunLedger } from "@usine/testkit/runLedger"

const countOpen = (store: RunLedger, tag: string) =>
  Effect.map(store.openRuns, (runs) => runs.filter((r) => r.state._tag === tag).length)

/**
 * `total` open Runs, all submitted through the engine: with `running`, a third each Waiting (no fiber), Queued
 * (approved, waiting for a Worker slot that never frees) and Running (a fiber executing an Attempt that never ends);
 * without, only idle ones, half Waiting and half Queued. Measures the heap they hold once idle, the CPU the engine
 * spends idle and on a reconcile, then the drain of every fiber.
 */
export const openRuns = (total: number, withRunning = true) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* scopedTempDir("usine-bench-engine-")
    const memory = yield* InMemoryExecutor.make
    memory.scriptOthers(() => Script.hang)
    const waiting = Math.floor(total / (withRunning ? 3 : 2))
    const queued = withRunning ? Math.floor(total / 3) : total - waiting
    const running = total - waiting - queued
    const scope = yield* Scope.make()
    const { engine, store } = yield* startBenchEngine(join(dir, "ledger.sqlite"), memory, running).pipe(Scope.extend(scope))
    const empty = memoryAfterGc()

    const cpu = process.cpuUsage()
    const started = performance.now()
    const now = Date.now()
    for (let k = 0; k < running; k++) {
      yield* engine.submit(pairSubmission(2 * k, 0, now + k, { loop: "build", approvalRequired: false }))
    }
    yield* pollUntil("Attempts executing", Effect.sync(() => memory.executions.length >= running))
    yield* Effect.sleep("1 second")
    const afterRunning = memoryAfterGc()
    const gated = []
    for (let k = 0; k < waiting + queued; k++) {
      const claim = yield* engine.submit(pairSubmission(2 * (running + k), 0, now + running + k, { loop: "gated", approvalRequired: true }))
      if (claim._tag === "Claimed") gated.push(claim.run.id)
    }
    yield* pollUntil("gated Runs Waiting", Effect.map(countOpen(store, "Waiting"), (n) => n === waiting + queued))
    yield* Effect.sleep("1 second")
    const withWaiting = memoryAfterGc()
    for (const runId of gated.slice(0, queued)) yield* engine.approve(runId)
    yield* pollUntil("approved Runs Queued", Effect.map(countOpen(store, "Queued"), (n) => n === queued))
    yield* Effect.sleep("1 second")
    const setupMs = performance.now() - started
    const setupCpu = process.cpuUsage(cpu)
    const steady = memoryAfterGc()
    // Each step's heap growth over its Runs; a Queued Run was a Waiting one, so it adds what approval costs to that.
    const kb = (from: number, to: number, runs: number) => Math.round(((to - from) * 1000) / runs * 10) / 10

    const idleCpu = process.cpuUsage()
    yield* Effect.sleep("5 seconds")
    const idle = process.cpuUsage(idleCpu)

    const reconcileStarted = performance.now()
    const report = yield* engine.reconcile
    const reconcileMs = performance.now() - reconcileStarted
    if (report.restarted.length > 0) return yield* Effect.dieMessage(`reconcile restarted ${report.restarted.length} live fibers`)

    const drainStarted = performance.now()
    yield* engine.requestShutdown
    yield* engine.requestShutdown
    const end = yield* engine.drain()
    const drainMs = performance.now() - drainStarted
    // With no Attempt admitted the drain is Idle at once; with Attempts, only the second signal ends it.
    if (end !== "Stopped" && !(running === 0 && end === "Idle")) return yield* Effect.dieMessage(`drain ended ${end}`)
    yield* Scope.close(scope, Exit.void)

    return {
      open: total,
      waiting,
      queued,
      running,
      emptyHeapMb: empty.heapMb,
      heapMb: steady.heapMb,
      rssMb: steady.rssMb,
      kbPerRun: kb(empty.heapMb, steady.heapMb, total),
      kbPerRunning: running === 0 ? 0 : kb(empty.heapMb, afterRunning.heapMb, running),
      kbPerWaiting: kb(afterRunning.heapMb, withWaiting.heapMb, waiting + queued),
      kbPerQueued: kb(withWaiting.heapMb, steady.heapMb, queued),
      setupS: setupMs / 1000,
      setupCpuMsPerRun: (setupCpu.user + setupCpu.system) / 1000 / total,
      idleCpuPercent: ((idle.user + idle.system) / 1000 / 5000) * 100,
      reconcileMs,
      drainMs,
      gcExposed: steady.collected
    }
  }))
