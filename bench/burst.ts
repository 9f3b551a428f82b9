import { cpus } from "node:os"
import { Effect } from "effect"
import { type BenchTarget, emitReport } from "./BenchReport"
import { type BurstItem } from "./burst/burstTimeline"
import { type BurstRow, measureBurst, POLL_SECONDS, REPOSITORIES, SLOTS } from "./burst/measureBurst"
import { sizesFromArgs } from "./sizesFromArgs"

/**
 * How long a row waits for pull requests after the labels: octokit paces their creation 3 s apart (20 a minute), so
 * 500 would take 25 minutes and 5,000 four hours. Rows of up to ALL_PULLS Items wait for every pull request.
 */
const PULL_BUDGET_MS = (sizesFromArgs([150], "--pull-budget-s")[0] ?? 150) * 1000
const ALL_PULLS = 50
const ALL_PULLS_MAX_MS = 600_000
/** How long a row waits for every Run to open: a row that does not get there reports what it reached. */
const OPEN_BUDGET_MS = (sizesFromArgs([300], "--open-budget-s")[0] ?? 300) * 1000
/** `--installed <prefix>/bin/usine` runs the installed package instead of the sources (issue 34's Footprint). */
const installedAt = process.argv.indexOf("--installed")
const INSTALLED = installedAt >= 0 ? process.argv[installedAt + 1] : undefined

const quantiles = (values: ReadonlyArray<number>) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b)
  const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)
  return [at(0.5), at(0.95), sorted.at(-1) ?? Number.NaN] as const
}
const s = (ms: number) => ms / 1000
const span = (items: ReadonlyArray<BurstItem>, f: (i: BurstItem) => number | undefined) =>
  quantiles(items.flatMap((i) => { const v = f(i); return v === undefined ? [] : [v] })).map(s)

const pulled = (r: BurstRow) => r.timeline.items.filter((i) => i.pullAt !== undefined)
const fmt = (q: ReadonlyArray<number>) => q.map((v) => v.toFixed(1)).join(" / ")

/** A row of the latency table: seconds, p50 / p95 / max over the Items that got there. */
const tableRow = (r: BurstRow) => {
  const t = r.timeline.items
  const p = pulled(r)
  return [
    r.items, s(r.labelMs), fmt(span(t, (i) => i.seenAt - i.labelledAt)), fmt(span(t, (i) => i.openedAt - i.seenAt)),
    fmt(span(t, (i) => i.openedAt - i.labelledAt)), `${t.length} of ${r.items}`, s(r.allOpenMs), `${p.length} of ${r.items}`,
    fmt(span(p, (i) => i.pullAt! - i.labelledAt)), fmt(span(p, (i) => i.pacedMs)), fmt(span(p, (i) => i.pullAt! - i.labelledAt - i.pacedMs!))
  ]
}

const program = Effect.gen(function* () {
  const rows: Array<BurstRow> = []
  for (const items of sizesFromArgs([50, 500, 5000], "--items")) {
    process.stderr.write(`burst: ${items} Items across ${REPOSITORIES} repositories\n`)
    const row = yield* measureBurst(items, items <= ALL_PULLS ? ALL_PULLS_MAX_MS : PULL_BUDGET_MS, OPEN_BUDGET_MS, INSTALLED === undefined ? undefined : [INSTALLED])
    // Each row as it ends, so a later row's failure does not lose it.
    process.stderr.write(`burst row: ${JSON.stringify({ ...row, timeline: { states: row.timeline.states, items: row.timeline.items.length }, table: tableRow(row) })}\n`)
    rows.push(row)
  }
  const largest = rows.at(-1)!
  const targets: Array<BenchTarget> = [{
    name: `every Run opened after ${largest.items.toLocaleString("en-US")} Items labelled in one cycle`,
    target: `all ${largest.items.toLocaleString("en-US")} open`,
    measured: `${largest.timeline.items.length.toLocaleString("en-US")} open, the last ${s(Math.max(...largest.timeline.items.map((i) => i.openedAt - i.labelledAt))).toFixed(1)} s after its label`,
    met: largest.timeline.items.length === largest.items
  }]
  emitReport({
    bench: "burst",
    tables: [
      {
        title: `A burst: N issues labelled within one ${POLL_SECONDS} s poll cycle across ${REPOSITORIES} repositories, \`usine up\`, ${SLOTS} slots, approval none, a no-op command agent (seconds p50 / p95 / max)`,
        columns: [
          "Items", "labelling s", "label → seen", "seen → Run opened", "label → Run opened", "Runs opened", "all open s", "PRs", "label → PR", "of which PR pacing",
          "label → PR w/o pacing"
        ],
        rows: rows.map(tableRow)
      },
      {
        title: "What the burst cost: GitHub requests and points per Item, the daemon's CPU and memory",
        columns: [
          "Items", "requests", "per Item", "REST charged per Item", "GraphQL points", "per Item", "CPU to all open ms", "per Item", "CPU to end ms",
          "RSS before MB", "RSS all open MB", "peak RSS MB", "window s", "load 1-min", "Run states at the end"
        ],
        rows: rows.map((r) => [
          r.items, r.requests, r.requests / r.items, r.restCharged / r.items, r.graphqlPoints, r.graphqlPoints / r.items, r.openCpuMs,
          r.openCpuMs / r.items, r.cpuMs, r.rssBeforeMb, r.openRssMb, r.peakRssMb, s(r.windowMs), `${r.loadBefore.toFixed(1)}–${r.loadMax.toFixed(1)}`,
          Object.entries(r.timeline.states).map(([state, n]) => `${state} ${n}`).join(", ")
        ])
      }
    ],
    targets,
    notes: [
      `${cpus().length} cores; the emulator runs in the bench's process, the daemon is its own (${INSTALLED === undefined ? "\`node apps/usine/bin/usine.js up\`" : `the installed package, \`${INSTALLED} up\``})`,
      "label = the emulator answered the bench's addLabels; seen = the Event's received_at (the poll read the Item); Run opened = the Run row's created_at; PR = the emulator answered POST …/pulls 201",
      `pull requests are waited for until all are open (rows of up to ${ALL_PULLS} Items) or ${PULL_BUDGET_MS / 1000} s after the first label; PR pacing = a PR's POST less its push (nth push ↔ nth POST per repository), i.e. the GitHub client's write throttle (3 s between content creations)`,
      "requests, REST charged and GraphQL points count from the first label to the end of the window (polls, write-back, git, pull requests); points as the emulator's /rate_limit reports them",
      "CPU from /proc/<pid>/stat, from the first label; RSS before = after startup and the first poll"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
