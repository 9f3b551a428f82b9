/**
 * Builds the `usine` package (ADR 0095): the CLI's bundle, the demo's files where the bundle resolves them, a
 * package.json whose `dependencies` are exactly what the bundle leaves to Node, and the README; then `npm pack`s it
 * into `usine-<version>.tgz`, in the repository's root unless `--out <dir>` says where.
 *
 *     pnpm --filter @usine/app pack:cli && npm install -g ./usine-<version>.tgz
 */
import { execFileSync } from "node:child_process"
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { bundleCli } from "./bundleCli"

const app = fileURLToPath(new URL("..", import.meta.url))
const root = fileURLToPath(new URL("../../..", import.meta.url))

/** The folder `npm pack` packs: laid out as the package is installed. */
const PACKAGE_DIR = join(app, "dist", "package")

/** Where the bundle sits in the package: two folders down, as in the app, so `../../demo` is the demo's folder. */
const BUNDLE_DIR = "dist/cli"
/** The package's `bin`, as installed: docs/Containerfile links `usine` to it. */
export const BUNDLE = `${BUNDLE_DIR}/usine.mjs`

/**
 * What the bundle loads from `node_modules` at run time: the ledger's native driver, the GraphQL schema (it reads
 * `schema.json` beside itself) and the Pi CLI that `usine demo` runs as its agent. Pinned to the versions the
 * workspace installs, which are the ones the tests run.
 */
const RUNTIME_DEPENDENCIES = ["better-sqlite3", "@octokit/graphql-schema", "@mariozechner/pi-coding-agent"] as const

interface Manifest {
  readonly version: string
  readonly engines?: Record<string, string>
}

const readManifest = (path: string): Manifest => JSON.parse(readFileSync(path, "utf8")) as Manifest

const installedVersion = (name: string): string => {
  const modules = (createRequire(join(app, "package.json")).resolve.paths(name) ?? []).map((dir) => join(dir, name, "package.json"))
  const manifest = modules.find(existsSync)
  if (manifest === undefined) throw new Error(`${name} is not installed in the workspace: run pnpm install`)
  return readManifest(manifest).version
}

/**
 * The files the bundle reads beside itself (`new URL("<relative>", import.meta.url)` in the entry or a chunk): each
 * must land inside the package and be in it, or the installed CLI would look for a clone's files.
 */
const checkBundlePaths = (dir: string): void => {
  for (const file of readdirSync(dir).map((name) => join(dir, name))) {
    const text = readFileSync(file, "utf8")
    if (text.includes(root)) throw new Error(`${file} names the workspace (${root}): it would read the clone at run time`)
    for (const match of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
      const target = resolve(dir, match[1]!)
      const inside = relative(PACKAGE_DIR, target)
      if (inside.startsWith("..")) throw new Error(`${file} reads ${target}, outside the package`)
      if (!existsSync(target)) throw new Error(`${file} reads ${inside}, which the package does not hold`)
    }
  }
}

interface NpmPacked {
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<{ readonly path: string }>
}

const filesUnder = (dir: string, prefix = ""): ReadonlyArray<string> =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
    return entry.isDirectory() ? filesUnder(dir, path) : [path]
  })

export interface PackedCli {
  readonly tarball: string
  readonly version: string
  readonly bytes: number
  readonly unpackedBytes: number
  /** What `usine --version` loads: the bundle's entry and the chunks it imports statically. */
  readonly startupBytes: number
  readonly ms: number
}

export const packCli = async (out: string = root): Promise<PackedCli> => {
  const started = Date.now()
  const { version } = readManifest(join(app, "package.json"))
  const engines = readManifest(join(root, "package.json")).engines ?? {}
  rmSync(PACKAGE_DIR, { recursive: true, force: true })
  const built = await bundleCli(join(PACKAGE_DIR, BUNDLE_DIR))
  chmodSync(built.file, 0o755)
  cpSync(join(app, "demo"), join(PACKAGE_DIR, "demo"), { recursive: true })
  cpSync(join(root, "README.md"), join(PACKAGE_DIR, "README.md"))
  for (const license of ["LICENSE", "LICENSE.md"]) {
    if (existsSync(join(root, license))) cpSync(join(root, license), join(PACKAGE_DIR, license))
  }
  const manifest = {
    name: "usine",
    version,
    description: "A self-hosted daemon that turns GitHub issues, pull requests and schedules into coding-agent work a human can steer",
    type: "module",
    bin: { usine: BUNDLE },
    engines: { node: engines["node"] ?? ">=20.19" },
    files: ["dist", "demo"],
    dependencies: Object.fromEntries(RUNTIME_DEPENDENCIES.map((name) => [name, installedVersion(name)]))
  }
  writeFileSync(join(PACKAGE_DIR, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  checkBundlePaths(join(PACKAGE_DIR, BUNDLE_DIR))
  mkdirSync(out, { recursive: true })
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: PACKAGE_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  ) as ReadonlyArray<NpmPacked>
  const tarball = join(out, packed!.filename)
  const dropped = filesUnder(PACKAGE_DIR).filter((file) => !packed!.files.some((entry) => entry.path === file))
  if (dropped.length > 0) throw new Error(`npm pack left out ${dropped.join(", ")} (it never packs .gitignore or .npmrc files)`)
  return { tarball, version, bytes: statSync(tarball).size, unpackedBytes: packed!.unpackedSize, startupBytes: built.startupBytes, ms: Date.now() - started }
}

const outOption = (argv: ReadonlyArray<string>): string | undefined => {
  const at = argv.indexOf("--out")
  return at === -1 ? undefined : resolve(argv[at + 1] ?? ".")
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packed = await packCli(outOption(process.argv) ?? root)
  console.log(
    `${packed.tarball}: ${(packed.bytes / 1e6).toFixed(1)} MB (${(packed.unpackedBytes / 1e6).toFixed(1)} MB unpacked) in ${packed.ms} ms\n` +
      `install it with: npm install -g ${packed.tarball}`
  )
}
