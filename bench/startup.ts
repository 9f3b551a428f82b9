/**
 * How long `usine` takes to start (issue 34, ADR 0095): `usine --version` and `usine check usine.yaml.example`, run
 * from the sources (tsx, as a contributor's `bin/usine.js`), from the bundle in the clone, and from an installed
 * package when `--installed <prefix>/bin/usine` names one; `node -e 0` beside them says what the machine's load costs
 * a bare Node. Each figure is the median and the fastest of `--runs` starts (default 15), with the median CPU time
 * (user + system) and peak RSS that `/usr/bin/time` reports. `--before <bundle>` adds another build of the CLI to compare
 * with (it must sit where it resolves better-sqlite3, e.g. under `apps/usine/dist/`).
 *
 *     pnpm --filter @usine/app bundle && node --import tsx bench/startup.ts [--installed <bin>] [--before <bundle>] [--runs 15]
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))

const argument = (flag: string) => {
  const index = process.argv.indexOf(flag)
  return index >= 0 ? process.argv[index + 1] : undefined
}
const runs = Number(argument("--runs") ?? "15")
const installed = argument("--installed")
const before = argument("--before")

interface Start {
  readonly wallMs: number
  readonly cpuMs: number
  readonly rssMb: number
}

const startOnce = (command: ReadonlyArray<string>): Start => {
  const started = performance.now()
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", ...command], { cwd: root, encoding: "utf8" })
  const wallMs = performance.now() - started
  if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${result.status}: ${result.stderr}`)
  const [user = 0, system = 0, rssKb = 0] = result.stderr.trim().split("\n").at(-1)!.split(" ").map(Number)
  return { wallMs, cpuMs: (user + system) * 1000, rssMb: rssKb / 1024 }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const measure = (label: string, command: ReadonlyArray<string>) => {
  startOnce(command)
  const starts = Array.from({ length: runs }, () => startOnce(command))
  const walls = starts.map((start) => start.wallMs)
  console.log(
    `| ${label} | ${median(walls).toFixed(0)} | ${Math.min(...walls).toFixed(0)} | ${median(starts.map((s) => s.cpuMs)).toFixed(0)} | ` +
      `${median(starts.map((s) => s.rssMb)).toFixed(0)} |`
  )
}

const bundle = join(root, "apps/usine/dist/cli/usine.mjs")
if (!existsSync(bundle)) {
  console.error(`${bundle} is missing: run pnpm --filter @usine/app bundle first`)
  process.exit(1)
}
const example = join(root, "usine.yaml.example")
const variants: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["sources (tsx)", [process.execPath, join(root, "apps/usine/bin/usine.js")]],
  ...(before === undefined ? [] : [["bundle before", [process.execPath, before]] as const]),
  ["bundle in the clone", [process.execPath, bundle]],
  ...(installed === undefined ? [] : [["installed package", [installed]] as const])
]

console.log(`load average before: ${loadavg().map((n) => n.toFixed(2)).join(" ")}; ${runs} starts each after one warm-up`)
console.log("| what starts | median ms | fastest ms | CPU ms (median) | peak RSS MB |")
console.log("|---|---|---|---|---|")
measure("`node -e 0`", [process.execPath, "-e", "0"])
for (const [label, command] of variants) measure(`${label}: \`--version\``, [...command, "--version"])
for (const [label, command] of variants) measure(`${label}: \`check usine.yaml.example\``, [...command, "check", example])
console.log(`load average after: ${loadavg().map((n) => n.toFixed(2)).join(" ")}`)
