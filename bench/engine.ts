import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { emitReport } from "./BenchReport"
import type { drainRunning } from "./engine/drainRunning"
import type { openRuns } from "./engine/openRuns"
import type { startup } from "./engine/startup"
import { runChild } from "./runChild"
import { OPEN_MIX, seededLedger } from "./seededLedger"
import { sizesFromArgs } from "./sizesFromArgs"

type Result<F extends (...args: never) => Effect.Effect<unknown, unknown, never>> = Effect.Effect.Success<ReturnType<F>>

const CASE = fileURLToPath(new URL("./engine/case.ts", import.meta.url))

const program = Effect.gen(function*() {
  const idle: Array<Result<typeof openRuns>> = []
  for (const runs of sizesFromArgs([1_000, 10_000], "--idle")) {
    process.stderr.write(`engine: ${runs} idle open Runs\n`)
    idle.push(runChild(CASE, ["idle", `${runs}`]))
  }
  const open: Array<Result<typeof openRuns>> = []
  for (const runs of sizesFromArgs([1_000, 3_000, 10_000], "--open")) {
    process.stderr.write(`engine: ${runs} open Runs\n`)
    open.push(runChild(CASE, ["open", `${runs}`]))
  }
  const drain: Array<Result<typeof drainRunning>> = []
  for (const fibers of sizesFromArgs([100, 300, 1_000, 3_000], "--drain")) {
    process.stderr.write(`engine: drain ${fibers} running fibers\n`)
    drain.push(runChild(CASE, ["drain", `${fibers}`]))
  }
  const starts: Array<Result<typeof startup> & { readonly events: number }> = []
  for (const events of sizesFromArgs([10_000, 100_000, 1_000_000])) {
    process.stderr.write(`engine: startup on ${events} Events\n`)
    const result = yield* Effect.scoped(Effect.map(seededLedger(events), ({ file }) => runChild<Result<typeof startup>>(CASE, ["startup", file])))
    starts.push({ events, ...result })
  }

  const largest = idle.at(-1)
  const thousand = drain.find((d) => d.running === 1_000)
  emitReport({
    bench: "engine",
    tables: [
      {
        title: "Idle open Runs (half Waiting, half Queued on a Worker with no free slot)",
        columns: ["open Runs", "heap MB", "KB/Run", "KB/Waiting", "KB/Queued", "RSS MB", "setup s", "idle CPU %", "reconcile ms", "drain ms"],
        rows: idle.map((o) => [o.open, o.heapMb, o.kbPerRun, o.kbPerWaiting, o.kbPerQueued, o.rssMb, o.setupS, o.idleCpuPercent, o.reconcileMs, o.drainMs])
      },
      {
        title: "Open Runs (a third each Waiting, Queued on a full Worker, Running an Attempt that never ends)",
        columns: ["open Runs", "heap MB", "KB/Run", "KB/Running", "KB/Waiting", "KB/Queued", "RSS MB", "setup s", "setup CPU ms/Run", "idle CPU %", "reconcile ms", "drain ms"],
        rows: open.map((o) => [o.open, o.heapMb, o.kbPerRun, o.kbPerRunning, o.kbPerWaiting, o.kbPerQueued, o.rssMb, o.setupS, o.setupCpuMsPerRun, o.idleCpuPercent, o.reconcileMs, o.drainMs])
      },
      {
        title: "Drain (two shutdown signals, then every fiber interrupted; Attempts detach and stay live)",
        columns: ["running fibers", "drain ms", "drain CPU ms", "CPU µs/fiber", "scope close ms"],
        rows: drain.map((d) => [d.running, d.drainMs, d.drainCpuMs, d.perFiberCpuUs, d.closeMs])
      },
      {
        title: `Startup on a ledger (lock, migrations, recover workspaces, first reconcile; ${OPEN_MIX.waiting + OPEN_MIX.queued + OPEN_MIX.running} open Runs)`,
        columns: ["Events in ledger", "startup + first reconcile ms", "CPU ms", "Running resumed ms", "next reconcile ms", "heap MB"],
        rows: starts.map((s) => [s.events, s.startupMs, s.startupCpuMs, s.resumedMs, s.reconcileMs, s.heapMb])
      }
    ],
    targets: [
      ...(largest === undefined ? [] : [{
        name: `heap with ${largest.open} idle open Runs (Waiting and Queued)`,
        target: "< 150 MB",
        measured: `${largest.heapMb} MB`,
        met: largest.heapMb < 150 && largest.gcExposed
      }]),
      ...(thousand === undefined ? [] : [{
        name: "drain of 1,000 running fibers",
        target: "< 1 s",
        measured: `${thousand.drainMs.toFixed(0)} ms wall, ${thousand.drainCpuMs.toFixed(0)} ms CPU`,
        met: thousand.drainMs < 1_000
      }])
    ],
    notes: [
      "heap = V8 heapUsed after two forced collections (node --expose-gc), the whole process: engine, SQLite client, modules",
      "executor = InMemoryExecutor (Hang script); Worker `big` has a slot per Running Run, Worker `full` none",
      "idle CPU % = process CPU over 5 s with nothing to do, of one core",
      "KB/Running, KB/Waiting: heap growth after submitting that kind, per Run; KB/Queued: growth when Waiting Runs are approved and queued for a slot (they hold no fiber, ADR 0046)",
      "idle open Runs = Waiting and Queued: a Running Run follows a live session, so the mixed table is reported apart"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
