/**
 * The README's test command names its Vitest projects in two runs (ADR 0088). This check fails when a workspace
 * package with tests is in neither run, or in both, so a new package's tests cannot silently stop running.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
const projectsOf = (script: string) => [...(scripts[script] ?? "").matchAll(/--project (\S+)/g)].map((match) => match[1]!)

const runs = ["test:shared", "test:isolated"].map((name) => ({ name, projects: projectsOf(name) }))
const tested = ["packages", "apps"].flatMap((base) =>
  readdirSync(join(root, base))
    .map((dir) => join(root, base, dir))
    .filter((dir) => existsSync(join(dir, "test")) && existsSync(join(dir, "package.json")))
    .map((dir) => (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name)
)

const problems = tested.flatMap((name) => {
  const inRuns = runs.filter((run) => run.projects.includes(name)).map((run) => run.name)
  return inRuns.length === 1 ? [] : [`${name} is in ${inRuns.length === 0 ? "no test run" : inRuns.join(" and ")}: name it in exactly one`]
})
for (const problem of problems) console.error(problem)
if (problems.length > 0) process.exit(1)
console.log(`every package with tests is in one test run (${tested.length} packages)`)
