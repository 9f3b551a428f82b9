import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { pollUntil } from "../pollUntil"
import { pairSubmission } from "../seedLedger"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { startBenchEngine } from "./benchEngine"

/**
 * `running` fibers each executing an Attempt that never ends; then the two shutdown signals and the drain, which
 * interrupts every fiber (the Attempts detach and stay live), and the close of the engine's scope.
 */
export const drainRunning = (running: number) =>
  Effect.scoped(Effect.gen(function*() {
    const dir = yield* scopedTempDir("usine-bench-drain-")
    const memory = yield* InMemoryExecutor.make
    memory.scriptOthers(() => Script.hang)
    const scope = yield* Scope.make()
    const { engine } = yield* startBenchEngine(join(dir, "ledger.sqlite"), memory, running).pipe(Scope.extend(scope))
    const now = Date.now()
    for (let k = 0; k < running; k++) {
      yield* engine.submit(pairSubmission(2 * k, 0, now + k, { loop: "build", approvalRequired: false }))
    }
    yield* pollUntil("Attempts executing", Effect.sync(() => memory.executions.length >= running))
    // Let the last sessions' first transcript writes land: the drain measured is of fibers waiting on their Attempts.
    yield* Effect.sleep("2 seconds")

    const started = performance.now()
    const cpu = process.cpuUsage()
    yield* engine.requestShutdown
    yield* engine.requestShutdown
    const end = yield* engine.drain()
    const drainMs = performance.now() - started
    const drainCpu = process.cpuUsage(cpu)
    if (end !== "Stopped") return yield* Effect.dieMessage(`drain ended ${end}`)
    const closeStarted = performance.now()
    yield* Scope.close(scope, Exit.void)
    const closeMs = performance.now() - closeStarted
    const detached = memory.executions.filter((id) => memory.isRunning(id)).length
    if (detached !== running) return yield* Effect.dieMessage(`only ${detached} of ${running} sessions stayed live`)
    const drainCpuMs = (drainCpu.user + drainCpu.system) / 1000
    return { running, drainMs, drainCpuMs, closeMs, perFiberCpuUs: (drainCpuMs * 1000) / running }
  }))
