/**
 * usine's footprint (issue 34, ADR 0108), for the installed package (`--installed <prefix>/bin/usine`) against the
 * sources (tsx, as the clone's `bin/usine.js`): `usine --version` (`--runs` starts after a warm-up, median and p95),
 * `usine up` to a Board that answers on a fresh folder (`--starts` each), and the RSS and CPU of `usine up` left idle
 * with three repositories (poll every 5 s, nothing labelled) for `--idle-minutes` (5; 60 for the hour), both daemons
 * side by side against one emulator in this process. `--only version,start,idle` picks parts.
 *
 *     node --import tsx bench/footprint.ts --installed <prefix>/bin/usine [--idle-minutes 60]
 */
import { loadavg } from "node:os"
import { Effect } from "effect"
import { type BenchTable, type BenchTarget, emitReport } from "./BenchReport"
import { POLL_SECONDS, REPOSITORIES } from "./footprint/idleWorld"
import { type IdleSample, measureIdle, measureStart } from "./footprint/measureDaemon"
import { quantile, versionStarts } from "./footprint/versionStarts"
import { SOURCE_USINE } from "./throughput/DaemonProcess"
import { benchSim } from "./throughput/benchWorld"
import { sizesFromArgs } from "./sizesFromArgs"

const argument = (flag: string) => {
  const index = process.argv.indexOf(flag)
  return index >= 0 ? process.argv[index + 1] : undefined
}
const installed = argument("--installed")
const runs = sizesFromArgs([20], "--runs")[0] ?? 20
const starts = sizesFromArgs([5], "--starts")[0] ?? 5
const idleMinutes = sizesFromArgs([5], "--idle-minutes")[0] ?? 5
const everySeconds = sizesFromArgs([10], "--every")[0] ?? 10
const only = argument("--only")?.split(",")
const part = (name: string) => only === undefined || only.includes(name)

const variants: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ...(installed === undefined ? [] : [["installed package", [installed]] as const]),
  ["sources (tsx)", SOURCE_USINE]
]
const load = () => loadavg().map((n) => n.toFixed(2)).join(" ")
const ms = (n: number) => Math.round(n)

/** The sample nearest `seconds` after the spawn. */
const at = (samples: ReadonlyArray<IdleSample>, seconds: number) =>
  samples.reduce<IdleSample | undefined>((best, s) => (best === undefined || Math.abs(s.seconds - seconds) < Math.abs(best.seconds - seconds) ? s : best), undefined)

const program = Effect.gen(function* () {
  const tables: Array<BenchTable> = []
  const targets: Array<BenchTarget> = []
  const notes: Array<string> = [`load average at the start: ${load()}`]
  const target = (variant: string, name: string, wanted: string, measured: number, unit: string, met: boolean) => {
    if (variant === "installed package") targets.push({ name, target: wanted, measured: `${measured.toFixed(0)} ${unit}`, met })
  }

  if (part("version")) {
    const rows = [["`node -e 0`", [process.execPath, "-e", "0"]] as const, ...variants].map(([label, command]) => {
      const starts = versionStarts(label.startsWith("`node") ? command : [...command, "--version"], runs)
      const times = starts.map((start) => start.wallMs)
      const cpu = starts.map((start) => start.cpuMs)
      return [label, runs, ms(quantile(times, 0.5)), ms(quantile(times, 0.95)), ms(Math.min(...times)), ms(quantile(cpu, 0.5)), ms(quantile(cpu, 0.95))] as const
    })
    for (const [label, , median] of rows) target(label, "`usine --version`, median", "< 150 ms", median, "ms", median < 150)
    tables.push({
      title: `\`usine --version\`: ${runs} starts after a warm-up (ms; CPU is user + system from /usr/bin/time)`,
      columns: ["what starts", "runs", "median", "p95", "fastest", "CPU median", "CPU p95"],
      rows
    })
    notes.push(`load average after --version: ${load()}`)
  }

  if (part("start") || part("idle")) {
    const { sim, token } = yield* benchSim
    if (part("start")) {
      const rows = []
      for (const [label, command] of variants) {
        const measured = []
        for (let n = 0; n < starts; n++) measured.push(yield* measureStart(sim, token, command, `start-${rows.length}-${n}`))
        const board = measured.map((m) => m.boardMs)
        const up = measured.map((m) => m.upMs)
        rows.push([label, starts, ms(quantile(board, 0.5)), ms(Math.max(...board)), ms(quantile(up, 0.5)), measured.map((m) => m.exitCode).join(" ")] as const)
        target(label, "`usine up` to the Board answering, fresh folder, median", "< 1 s", quantile(board, 0.5), "ms", quantile(board, 0.5) < 1000)
      }
      tables.push({
        title: `\`usine up\` on a fresh folder (${REPOSITORIES} repositories, the emulator): spawn → the Board answers \`GET /\` (ms)`,
        columns: ["what starts", "starts", "Board median", "Board slowest", "\"usine is up\" median", "exit codes after SIGTERM"],
        rows
      })
      notes.push(`load average after the starts: ${load()}`)
    }
    if (part("idle")) {
      const idle = yield* Effect.all(
        variants.map(([label, command]) => Effect.map(measureIdle(sim, token, command, label, idleMinutes, everySeconds), (result) => [label, result] as const)),
        { concurrency: "unbounded" }
      )
      const marks = [80, 300, ...(idleMinutes >= 60 ? [3600] : [])].filter((s) => s <= idleMinutes * 60)
      tables.push({
        title: `\`usine up\` idle, ${REPOSITORIES} repositories, poll every ${POLL_SECONDS} s, nothing labelled, both side by side for ${idleMinutes} min: RSS (MB) and CPU`,
        columns: ["what runs", ...marks.map((s) => `RSS at ${s} s`), "RSS min–max after 5 min", "CPU % of a core after 80 s", "exit code"],
        rows: idle.map(([label, { exitCode, samples }]) => {
          const late = samples.filter((s) => s.seconds >= 300)
          const from = at(samples, 80)
          const last = samples.at(-1)
          const cpuShare = from !== undefined && last !== undefined && last.seconds > from.seconds
            ? (100 * (last.cpuMs - from.cpuMs)) / ((last.seconds - from.seconds) * 1000) : Number.NaN
          return [
            label,
            ...marks.map((s) => at(samples, s)?.rssMb ?? Number.NaN),
            late.length === 0 ? "–" : `${Math.min(...late.map((s) => s.rssMb)).toFixed(0)}–${Math.max(...late.map((s) => s.rssMb)).toFixed(0)}`,
            cpuShare,
            String(exitCode)
          ]
        })
      })
      for (const [label, { samples }] of idle) {
        const rss = at(samples, 300)?.rssMb
        if (rss !== undefined && idleMinutes >= 5) target(label, "RSS after 5 min idle, three repositories", "< 120 MB", rss, "MB", rss < 120)
      }
      notes.push(`load average after the idle run: ${load()}`)
    }
  }
  emitReport({ bench: "footprint", tables, targets, notes })
}).pipe(Effect.scoped)

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
