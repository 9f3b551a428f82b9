import { cpus } from "node:os"
import { Effect } from "effect"
import { type BenchTarget, emitReport } from "./BenchReport"
import { sizesFromArgs } from "./sizesFromArgs"
import { type BareTimes } from "./throughput/bareRun"
import { type RunTimeline } from "./throughput/ledgerTimeline"
import { type BareRow, measureBare } from "./throughput/measureBare"
import { type DaemonRow, measureDaemon } from "./throughput/measureDaemon"
import { mean, median } from "./throughput/median"

/** Items a row gets for its slots, so each row runs about a minute on this machine; `--items N` sets them all. */
const ITEMS: Readonly<Record<number, number>> = { 1: 16, 2: 20, 4: 24, 8: 24 }
const itemsArg = sizesFromArgs([], "--items")[0]
const itemsFor = (slots: number) => itemsArg ?? ITEMS[slots] ?? 8 * slots

const TARGET_MS = 200

const phases: ReadonlyArray<readonly [Exclude<keyof RunTimeline, "runId">, string]> = [
  ["claim", "poll → Run"],
  ["slotWait", "slot wait"],
  ["attemptStart", "Attempt row"],
  ["workspace", "workspace"],
  ["turnStart", "turn row"],
  ["sessionStart", "session start"],
  ["agent", "agent"],
  ["endNoticed", "end noticed"],
  ["harvest", "harvest + PR"],
  ["record", "record"],
  ["service", "Running → Succeeded"]
]

const perMinute = (items: number, ms: number) => (items * 60_000) / ms
const bareMedian = (bare: BareRow, key: keyof BareTimes) => median(bare.times.map((t) => t[key]))

interface Row {
  readonly daemon: DaemonRow
  readonly bare: BareRow
}

const program = Effect.gen(function* () {
  const rows: Array<Row> = []
  for (const slots of sizesFromArgs([1, 2, 4, 8], "--slots")) {
    const items = itemsFor(slots)
    const label = `throughput: ${slots} slot${slots === 1 ? "" : "s"}, ${items} Items`
    // The bare work runs before and after the daemon's row, so both see about the same load from the machine's other users.
    process.stderr.write(`${label}: bare git + agent\n`)
    const before = yield* measureBare(slots, items)
    process.stderr.write(`${label}: usine up\n`)
    const daemon = yield* measureDaemon(slots, items)
    process.stderr.write(`${label}: bare git + agent again\n`)
    const after = yield* measureBare(slots, items)
    rows.push({
      daemon,
      bare: {
        wallMs: (before.wallMs + after.wallMs) / 2,
        times: [...before.times, ...after.times],
        pushToPullMs: [...before.pushToPullMs, ...after.pushToPullMs]
      }
    })
  }
  // The overhead a Run adds on the critical path: per-Run wall time of the daemon minus that of the bare work.
  const overhead = (r: Row) => r.daemon.windowMs / r.daemon.items - r.bare.wallMs / r.daemon.items
  // The push → POST span of a daemon Run, less that of a bare Run, which has no throttle.
  const bareSpan = (b: BareRow) => median(b.pushToPullMs)
  const pacing = (r: Row) => mean(r.daemon.pacing.map((p) => p.spanMs)) - bareSpan(r.bare)
  // The pacing a Run waits is on the critical path only while a single slot serializes the Runs.
  const ownOverhead = (r: Row) => overhead(r) - (r.daemon.slots === 1 ? pacing(r) : 0)
  // The daemon's CPU a Run, less what it would have spent idle (polling) over the same span.
  const runCpu = (d: DaemonRow) => (d.cpuMs - (d.idleCpuPct / 100) * d.fromUpMs) / d.items
  const one = rows.find((r) => r.daemon.slots === 1) ?? rows[0]!
  const ms = (n: number) => `${Math.round(n)} ms`
  const targets: Array<BenchTarget> = [
    {
      name: `daemon overhead per Run, end to end (${one.daemon.slots} slot)`,
      target: `< ${TARGET_MS} ms`,
      measured: `${ms(overhead(one))}: per-Run wall ${ms(one.daemon.windowMs / one.daemon.items)} − bare git + agent ${ms(one.bare.wallMs / one.daemon.items)}`,
      met: overhead(one) < TARGET_MS
    },
    {
      name: `the same without the GitHub client's pull-request pacing (${one.daemon.slots} slot)`,
      target: `< ${TARGET_MS} ms`,
      measured: `${ms(ownOverhead(one))} (pacing ${ms(pacing(one))} a Run); daemon CPU ${ms(one.daemon.cpuMs / one.daemon.items)} a Run, ${ms(runCpu(one.daemon))} beyond idle`,
      met: ownOverhead(one) < TARGET_MS
    }
  ]
  emitReport({
    bench: "throughput",
    tables: [
      {
        title: "Items → pull requests: `usine up` against the emulator, a no-op command agent, approval none, no verify",
        columns: [
          "slots", "Items", "PRs/min", "per-Run wall ms", "bare PRs/min", "bare per-Run ms", "overhead ms/Run", "PR pacing ms/Run",
          "overhead w/o pacing", "load 1-min"
        ],
        rows: rows.map((r) => {
          const { daemon: d, bare: b } = r
          return [
            d.slots, d.items, perMinute(d.items, d.windowMs), d.windowMs / d.items, perMinute(d.items, b.wallMs), b.wallMs / d.items,
            overhead(r), pacing(r), ownOverhead(r), `${d.loadBefore.toFixed(1)}–${d.loadMax.toFixed(1)}`
          ]
        })
      },
      {
        title: "What the daemon costs: a Run's service time against the bare work, CPU and memory of the `usine up` process",
        columns: [
          "slots", "service ms (median)", "bare Run ms (median)", "daemon CPU ms/Run", "beyond idle", "git CPU ms/Run", "daemon CPU %",
          "idle CPU %", "RSS MB", "peak RSS MB", "startup ms", "startup CPU ms"
        ],
        rows: rows.map(({ daemon: d, bare: b }) => [
          d.slots, median(d.runs.map((t) => t.service)), bareMedian(b, "totalMs"), d.cpuMs / d.items, runCpu(d), d.childCpuMs / d.items,
          (100 * d.cpuMs) / d.fromUpMs, d.idleCpuPct, d.rssMb, d.peakRssMb, d.startupMs, d.startupCpuMs
        ])
      },
      {
        title: "Where a Run's time goes: median ms per phase, from the ledger's timestamps (Events, transitions, Attempts, transcript rows)",
        columns: ["slots", ...phases.map(([, label]) => label), "of which PR pacing", "harvest w/o pacing"],
        rows: rows.map(({ daemon: d, bare: b }) => {
          const paced = d.runs.map(
            (t) => (d.pacing.find((p) => p.head.endsWith(`-${t.runId.slice(0, 8)}`))?.spanMs ?? Number.NaN) - bareSpan(b)
          )
          return [
            d.slots, ...phases.map(([key]) => median(d.runs.map((t) => t[key]))), median(paced),
            median(d.runs.map((t, i) => t.harvest - paced[i]!))
          ]
        })
      },
      {
        title: "The same work without the daemon: median ms per step of a bare Run (git as the executor runs it, the agent, one POST)",
        columns: ["slots", "prepare (fetch, worktree add)", "agent process", "harvest git (commit … push)", "POST pulls", "cleanup", "total"],
        rows: rows.map(({ bare: b, daemon: d }) => [
          d.slots, bareMedian(b, "prepareMs"), bareMedian(b, "agentMs"), bareMedian(b, "harvestMs"), bareMedian(b, "pullRequestMs"),
          bareMedian(b, "cleanupMs"), bareMedian(b, "totalMs")
        ])
      }
    ],
    targets,
    notes: [
      `${cpus().length} cores; the emulator and the bare runs share the bench's process, the daemon is its own (\`node apps/usine/bin/usine.js up\`)`,
      "PRs/min and per-Run wall run from the first poll that saw the Items (earliest Event received_at) to the last POST …/pulls answered 201",
      "overhead ms/Run = per-Run wall − bare per-Run wall at the same slots; PR pacing = a Run's POST …/pulls after its push (git-receive-pack) less the same span of a bare Run (median), i.e. the GitHub client's write throttle; subtracted at 1 slot only, where it is on the critical path",
      "startup (spawn → \"usine is up\", tsx compiling the sources) is not counted in the Runs' figures",
      `requests to the emulator per Run (${one.daemon.slots} slot, polling included): ${Object.entries(one.daemon.routes).map(([route, n]) => `${(n / one.daemon.items).toFixed(1)} × ${route}`).join(", ")}`,
      `Run states at the end: ${rows.map((r) => `${r.daemon.slots} slots: ${JSON.stringify(r.daemon.states)}, exit ${r.daemon.exitCode}`).join("; ")}`,
      "CPU from /proc/<pid>/stat between the 'usine is up' line and the last pull request; git CPU = the daemon's reaped children (git; not the detached agent sessions); daemon CPU % = of one core over that span; idle CPU % = over 5 s after the last pull request, still polling; beyond idle = daemon CPU less idle CPU over the span"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
