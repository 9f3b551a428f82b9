/**
 * The dependency half that dependency-cruiser does not check (ADR 0075): in every workspace package, each entry of
 * `dependencies` is imported by its `src/`, each of `devDependencies` by its tests (anything outside `src/`), and each
 * package its `src/` imports is a runtime dependency, not a devDependency. A declared package counts as used when it is
 * a peer of a used one (declared so that one version is resolved), or when `uses` below says how else it is used.
 * Prints each mismatch and exits 1 on any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const root = join(import.meta.dirname, "..")

/** Packages used other than by an import, and how. */
const uses: Readonly<Record<string, string>> = {
  "@mariozechner/pi-coding-agent": "its CLI is run as an agent (`usine demo`, the real-CLI tests)",
  "@openai/codex": "its CLI is run as an agent by the `test:agents` profile",
  "@anthropic-ai/claude-code": "its CLI is run as an agent by the `test:agents` profile",
  "@types/picomatch": "the types of picomatch",
  "@types/pg": "the types of pg",
  "@types/node": "the types of node:*",
  "better-sqlite3": "left outside the CLI's bundle (a native addon), resolved from the app (ADR 0087)",
  "@octokit/graphql-schema": "left outside the CLI's bundle (it reads its own files), resolved from the app (ADR 0087)"
}

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
}

const readJson = (path: string): Manifest => JSON.parse(readFileSync(path, "utf8")) as Manifest

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    if (entry === "node_modules" || entry.startsWith(".")) return []
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(tsx?|mts|cts|mjs|js)$/.test(entry) ? [path] : []
  })

const specifier = /(?:\bfrom|\bimport|\brequire|createRequire\([^)]*\))\s*\(?\s*["']([^"'.][^"']*)["']/g

const packageOf = (spec: string): string | undefined => {
  if (spec.startsWith("node:")) return undefined
  const parts = spec.split("/")
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

const importsOf = (files: ReadonlyArray<string>): Set<string> => {
  const found = new Set<string>()
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(specifier)) {
      const name = packageOf(match[1]!)
      if (name !== undefined) found.add(name)
    }
  }
  return found
}

/** The peers of `names`, read from each one's installed package.json. */
const peersOf = (dir: string, names: Iterable<string>): Set<string> => {
  const peers = new Set<string>()
  for (const name of names) {
    const manifest = join(dir, "node_modules", name, "package.json")
    if (!existsSync(manifest)) continue
    for (const peer of Object.keys(readJson(manifest).peerDependencies ?? {})) peers.add(peer)
  }
  return peers
}

const workspaces = ["packages", "apps"].flatMap((base) =>
  readdirSync(join(root, base)).map((name) => join(root, base, name)).filter((dir) => existsSync(join(dir, "package.json")))
).concat([join(root, "bench")])

const problems: Array<string> = []
for (const dir of workspaces) {
  const manifest = readJson(join(dir, "package.json"))
  const where = relative(root, dir)
  const files = sourceFiles(dir)
  const inSrc = (file: string) => relative(dir, file).startsWith("src/")
  // bench is a tool, not a library: all of it is its "src".
  const runtimeFiles = where === "bench" ? files : files.filter(inSrc)
  const testFiles = where === "bench" ? [] : files.filter((file) => !inSrc(file))
  const runtime = importsOf(runtimeFiles)
  const test = importsOf(testFiles)
  runtime.delete(manifest.name)
  test.delete(manifest.name)
  const deps = Object.keys(manifest.dependencies ?? {})
  const devDeps = Object.keys(manifest.devDependencies ?? {})
  const peers = peersOf(dir, [...runtime, ...test].filter((name) => deps.includes(name) || devDeps.includes(name)))
  for (const name of deps) {
    if (!runtime.has(name) && !peers.has(name) && uses[name] === undefined) {
      problems.push(`${where}: dependency ${name} is not imported by src/${test.has(name) ? " (only by tests: make it a devDependency)" : ""}`)
    }
  }
  for (const name of devDeps) {
    if (!test.has(name) && !peers.has(name) && uses[name] === undefined) {
      problems.push(`${where}: devDependency ${name} is not imported by its tests${runtime.has(name) ? " (src imports it: make it a dependency)" : ""}`)
    }
  }
  for (const name of runtime) {
    if (!deps.includes(name) && devDeps.includes(name)) problems.push(`${where}: src/ imports ${name}, a devDependency only`)
  }
}

for (const problem of problems) console.error(problem)
if (problems.length > 0) process.exit(1)
console.log(`declared dependencies match imports in ${workspaces.length} packages`)
