import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/** How many files the report names. */
const SHOWN = 15

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * A Vitest reporter that ends the run with its slowest test files (issue 35): each file's time collecting its
 * modules and running its tests, the project it belongs to, and the sums per project, so that the next speed-up
 * starts from figures instead of a guess. It prints nothing else.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const rows = modules.map((module) => {
      const { collectDuration, duration } = module.diagnostic()
      return { file: relative(process.cwd(), module.moduleId), project: module.project.name, collect: collectDuration, tests: duration }
    })
    if (rows.length === 0) return
    const total = (row: (typeof rows)[number]) => row.collect + row.tests
    const lines = [...rows].sort((a, b) => total(b) - total(a)).slice(0, SHOWN).map((row) =>
      `  ${seconds(total(row)).padStart(8)}  (collect ${seconds(row.collect)})  ${row.project} ${row.file}`
    )
    const projects = new Map<string, { files: number; ms: number }>()
    for (const row of rows) {
      const sum = projects.get(row.project) ?? { files: 0, ms: 0 }
      projects.set(row.project, { files: sum.files + 1, ms: sum.ms + total(row) })
    }
    const perProject = [...projects].sort((a, b) => b[1].ms - a[1].ms).map(([name, sum]) =>
      `  ${seconds(sum.ms).padStart(8)}  ${name} (${sum.files} files)`
    )
    console.log([`\nThe ${lines.length} slowest test files (collect + tests):`, ...lines, "Per project (file times added up):", ...perProject].join("\n"))
  }
}
