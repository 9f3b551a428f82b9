import { Effect, Exit, Scope } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { memoryAfterGc } from "../memoryAfterGc"
import { pollUntil } from "../pollUntil"
import { OPEN_MIX } from "../seededLedger"
import { startBenchEngine } from "./benchEngine"

/**
 * An engine starting on a ledger written by an earlier process: the ledger lock, the migration check, recovering
 * workspaces and the first reconcile (which starts a fiber for every open Run but the Waiting ones) all happen while
 * the layer builds. The seeded Running Runs find their session gone and start Attempt 2.
 */
export const startup = (ledger: string) =>
  Effect.gen(function*() {
    const memory = yield* InMemoryExecutor.make
    memory.scriptOthers(() => Script.hang)
    const scope = yield* Scope.make()
    const started = performance.now()
    const cpu = process.cpuUsage()
    const { engine, store } = yield* startBenchEngine(ledger, memory, OPEN_MIX.running).pipe(Scope.extend(scope))
    const startupMs = performance.now() - started
    const startupCpu = process.cpuUsage(cpu)
    yield* pollUntil("resumed Attempts executing", Effect.sync(() => memory.executions.length >= OPEN_MIX.running))
    const resumedMs = performance.now() - started
    const reconcileStarted = performance.now()
    const report = yield* engine.reconcile
    const reconcileMs = performance.now() - reconcileStarted
    const open = (yield* store.openRuns).length
    const heap = memoryAfterGc()
    yield* engine.requestShutdown
    yield* engine.requestShutdown
    yield* engine.drain()
    yield* Scope.close(scope, Exit.void)
    return {
      startupMs,
      startupCpuMs: (startupCpu.user + startupCpu.system) / 1000,
      resumedMs,
      reconcileMs,
      reconcileOpen: report.open,
      open,
      heapMb: heap.heapMb,
      rssMb: heap.rssMb
    }
  })
