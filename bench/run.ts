import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir, totalmem } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BenchReport, formatTargets } from "./BenchReport"
import { linkDependencies } from "./linkDependencies"

const bench = dirname(fileURLToPath(import.meta.url))
const root = dirname(bench)

/** Each bench with the arguments `--quick` gives it: a smoke run of a minute or two instead of the full sizes. */
const BENCHES: ReadonlyArray<{ readonly name: string; readonly quick: ReadonlyArray<string> }> = [
  { name: "ledger", quick: ["--sizes", "10000"] },
  { name: "engine", quick: ["--idle", "1000", "--open", "300,1000", "--drain", "100,300", "--sizes", "10000"] },
  { name: "polling", quick: ["--sizes", "1,10"] },
  { name: "board", quick: ["--sizes", "10000"] },
  { name: "postgres", quick: ["--sizes", "10000"] },
  { name: "throughput", quick: ["--slots", "1,4", "--items", "6"] },
  { name: "burst", quick: ["--items", "10,100", "--pull-budget-s", "30"] },
  { name: "sandbox", quick: ["--runs", "10"] },
  { name: "attemptClone", quick: ["--runs", "5", "--commits", "1000"] },
  { name: "webhooks", quick: ["--runs", "5"] }
]

const argument = (flag: string) => {
  const index = process.argv.indexOf(flag)
  return index >= 0 ? process.argv[index + 1] : undefined
}
const quick = process.argv.includes("--quick")
const only = argument("--only")?.split(",")
const selected = BENCHES.filter((b) => only === undefined || only.includes(b.name))

const load = () => loadavg().map((n) => n.toFixed(2)).join(" ")

const missing = linkDependencies()
if (missing.length > 0) {
  console.error(`cannot link ${missing.join(", ")}: run pnpm install first`)
  process.exit(1)
}

const machine = {
  date: new Date().toISOString(),
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGb: Math.round(totalmem() / 1e9),
  node: process.version,
  loadAtStart: load()
}
console.log(`usine benchmarks, ${machine.date}: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGb} GB, Node ${machine.node}, load ${machine.loadAtStart}`)

// Seeds of 10^6 Events take minutes: the first bench that needs one leaves it here for the next.
const cache = mkdtempSync(join(tmpdir(), "usine-bench-cache-"))
const out = mkdtempSync(join(tmpdir(), "usine-bench-out-"))
interface BenchRun {
  readonly name: string
  /** When this bench ran and whether with `--quick`: with `--only`, the others keep their earlier figures. */
  readonly date: string
  readonly quick: boolean
  readonly seconds: number
  readonly loadBefore: string
  readonly loadAfter: string
  readonly report: BenchReport | undefined
}
const runs: Array<BenchRun> = []
try {
  for (const { name, quick: quickArgs } of selected) {
    const json = join(out, `${name}.json`)
    const loadBefore = load()
    console.log(`\n## ${name} (load ${loadBefore})`)
    const date = new Date().toISOString()
    const started = performance.now()
    // Each bench is its own process, so one's heap and caches never show in another's figures.
    const result = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(bench, `${name}.ts`), ...(quick ? quickArgs : [])], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, BENCH_JSON_OUT: json, USINE_BENCH_CACHE: cache }
    })
    const seconds = Math.round((performance.now() - started) / 1000)
    let report: BenchReport | undefined
    try {
      report = JSON.parse(readFileSync(json, "utf8")) as BenchReport
    } catch {
      report = undefined
    }
    if (result.status !== 0 || report === undefined) console.error(`${name} failed (exit ${result.status})`)
    runs.push({ name, date, quick, seconds, loadBefore, loadAfter: load(), report })
  }
} finally {
  rmSync(cache, { recursive: true, force: true })
  rmSync(out, { recursive: true, force: true })
}

const resultsFile = join(bench, "results.json")
/** The benches of the last results.json this run did not measure, each with when it was measured. */
const earlier = (): ReadonlyArray<BenchRun> => {
  try {
    const previous = JSON.parse(readFileSync(resultsFile, "utf8")) as {
      readonly machine?: { readonly date?: string }
      readonly quick?: boolean
      readonly benches?: ReadonlyArray<Partial<BenchRun> & { readonly name: string }>
    }
    return (previous.benches ?? [])
      .filter((b) => !runs.some((r) => r.name === b.name))
      .map((b) => ({ date: previous.machine?.date ?? "", quick: previous.quick ?? false, ...b }) as BenchRun)
  } catch {
    return []
  }
}
const order = (name: string) => BENCHES.findIndex((b) => b.name === name)
const benches = [...earlier(), ...runs].sort((a, b) => order(a.name) - order(b.name))
writeFileSync(resultsFile, `${JSON.stringify({ machine, quick, benches }, null, 2)}\n`)
console.log("\n## Summary\n")
for (const run of runs) {
  console.log(`${run.name}: ${run.report === undefined ? "FAILED" : "done"} in ${run.seconds} s (load ${run.loadBefore} -> ${run.loadAfter})`)
  if (run.report !== undefined) console.log(`\n${formatTargets(run.report.targets)}\n`)
}
console.log(`written: ${join(bench, "results.json")}`)
process.exit(runs.every((r) => r.report !== undefined) ? 0 : 1)
