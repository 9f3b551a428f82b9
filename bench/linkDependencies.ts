import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const bench = dirname(fileURLToPath(import.meta.url))
const root = dirname(bench)

/** Where an installed copy of a third-party dependency can be found: the app and each package link what they use. */
const installedIn = (): ReadonlyArray<string> => [
  join(root, "apps", "usine", "node_modules"),
  ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "node_modules"))
]

/**
 * `bench/` is not in pnpm-workspace.yaml yet, so pnpm links nothing for it. Until it is, this links each dependency
 * of bench/package.json into bench/node_modules the way pnpm would (workspace packages to their folders, the rest to
 * the store copy another package already uses), so Node and tsc resolve `effect` and `@usine/store/Sql` from here.
 * Links that exist are left alone, so a real `pnpm install` wins.
 */
export const linkDependencies = (): ReadonlyArray<string> => {
  const manifest = JSON.parse(readFileSync(join(bench, "package.json"), "utf8")) as {
    readonly dependencies: Readonly<Record<string, string>>
  }
  const missing: Array<string> = []
  for (const [name, version] of Object.entries(manifest.dependencies)) {
    const link = join(bench, "node_modules", name)
    if (existsSync(link) || isDanglingLink(link)) continue
    const target = version.startsWith("workspace:")
      ? join(root, "packages", name.replace(/^@usine\//, ""))
      : installedIn().map((dir) => join(dir, name)).find((candidate) => existsSync(candidate))
    if (target === undefined || !existsSync(target)) {
      missing.push(name)
      continue
    }
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(relative(dirname(link), realpathSync(target)), link, "dir")
  }
  return missing
}

const isDanglingLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = linkDependencies()
  if (missing.length > 0) console.error(`not installed anywhere in the workspace: ${missing.join(", ")}`)
}
