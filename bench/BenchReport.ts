import { writeFileSync } from "node:fs"

/** One table of a bench: a row per input size, so the growth shows. */
export interface BenchTable {
  readonly title: string
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string | number>>
}

/** A target of the issue and what was measured against it. */
export interface BenchTarget {
  readonly name: string
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

export interface BenchReport {
  readonly bench: string
  readonly tables: ReadonlyArray<BenchTable>
  readonly targets: ReadonlyArray<BenchTarget>
  readonly notes: ReadonlyArray<string>
}

const cell = (value: string | number): string =>
  typeof value === "number" ? (Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(value < 10 ? 2 : 1)) : value

/** A Markdown table, so the output pastes into RESULTS.md as it is. */
const formatTable = (table: BenchTable): string => {
  const rows = table.rows.map((row) => row.map(cell))
  const widths = table.columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (values: ReadonlyArray<string>) =>
    `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(" | ")} |`
  return [
    `### ${table.title}`,
    "",
    line(table.columns),
    `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...rows.map(line)
  ].join("\n")
}

export const formatTargets = (targets: ReadonlyArray<BenchTarget>): string =>
  formatTable({
    title: "Targets",
    columns: ["target", "wanted", "measured", "met"],
    rows: targets.map((t) => [t.name, t.target, t.measured, t.met ? "yes" : "NO"])
  })

/** Prints the tables, the targets and the JSON; `BENCH_JSON_OUT` (set by run.ts) receives the JSON too. */
export const emitReport = (report: BenchReport): void => {
  const text = [...report.tables.map(formatTable), formatTargets(report.targets), ...report.notes.map((n) => `- ${n}`)]
  console.log(`\n${text.join("\n\n")}\n`)
  const json = JSON.stringify(report, null, 2)
  console.log(json)
  const out = process.env["BENCH_JSON_OUT"]
  if (out !== undefined) writeFileSync(out, json)
}
