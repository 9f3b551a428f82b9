/**
 * Builds the CLI into ES modules (ADR 0087): `dist/cli/usine.mjs`, two folders below the app like `src/demo/`, so
 * the paths the sources resolve against `import.meta.url` (the demo's sample repository, the Pi CLI) land where
 * they do from the sources. Each command's work is a chunk beside it, loaded when that command runs (ADR 0095), and
 * the CLI's parser is one too: `usine --version` reads only the entry and the version (ADR 0108). Packages that read their own files or load a native addon stay
 * outside the bundle and resolve from `node_modules`. The chunks are named by their content and the entry is
 * renamed into place last, so a run that starts a daemon meanwhile loads either the old build or the new one.
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const app = fileURLToPath(new URL("..", import.meta.url))

/** The folder of the build: the entry and its chunks. */
const CLI_DIR = fileURLToPath(new URL("../dist/cli", import.meta.url))

/** The entry: the file `node` runs as `usine`. */
export const CLI_BUNDLE = join(CLI_DIR, "usine.mjs")

/** Left to Node's resolution: a native addon, a package reading files beside itself, the agents' CLIs. */
const EXTERNAL = ["better-sqlite3", "@octokit/graphql-schema", "@mariozechner/pi-coding-agent", "playwright-core"]

/** The build: its entry, its size, and what `usine --version` loads (the entry and the chunks it imports statically). */
export interface CliBuild {
  readonly file: string
  readonly bytes: number
  readonly startupBytes: number
  readonly chunks: number
  readonly ms: number
}

type Outputs = Record<string, { readonly bytes: number; readonly imports: ReadonlyArray<{ readonly path: string; readonly kind: string; readonly external?: boolean }> }>

/** The bytes Node reads before a command runs: the entry and every chunk it imports statically, transitively. */
const startupBytesOf = (outputs: Outputs, entry: string): number => {
  const loaded = new Set<string>()
  const visit = (file: string) => {
    if (loaded.has(file)) return
    loaded.add(file)
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.kind === "import-statement" && imported.external !== true) visit(imported.path)
    }
  }
  visit(entry)
  return [...loaded].reduce((sum, file) => sum + (outputs[file]?.bytes ?? 0), 0)
}

export const bundleCli = async (outdir: string = CLI_DIR): Promise<CliBuild> => {
  const started = Date.now()
  const partial = `${outdir}.${process.pid}.tmp`
  rmSync(partial, { recursive: true, force: true })
  const result = await build({
    absWorkingDir: app,
    entryPoints: { usine: "src/main.ts" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir: partial,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunk-[hash]",
    external: EXTERNAL,
    tsconfig: fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)),
    // Run as a program by the package's `bin` (ADR 0095); some bundled CommonJS packages call `require` for Node's own
    // modules.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as usineCreateRequire } from 'node:module'; const require = usineCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: "warning"
  })
  mkdirSync(outdir, { recursive: true })
  const built = readdirSync(partial)
  for (const file of built.filter((name) => name !== "usine.mjs")) renameSync(join(partial, file), join(outdir, file))
  renameSync(join(partial, "usine.mjs"), join(outdir, "usine.mjs"))
  rmSync(partial, { recursive: true, force: true })
  for (const stale of readdirSync(outdir).filter((name) => name.startsWith("chunk-") && !built.includes(name))) {
    rmSync(join(outdir, stale), { force: true })
  }
  const outputs = result.metafile.outputs
  const entry = Object.keys(outputs).find((path) => basename(path) === "usine.mjs") ?? ""
  return {
    file: join(outdir, "usine.mjs"),
    bytes: Object.values(outputs).reduce((sum, output) => sum + output.bytes, 0),
    startupBytes: startupBytesOf(outputs, entry),
    chunks: Object.keys(outputs).length - 1,
    ms: Date.now() - started
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await bundleCli()
  console.log(
    `${built.file}: ${(built.bytes / 1e6).toFixed(1)} MB in ${built.chunks + 1} files (${(built.startupBytes / 1e6).toFixed(1)} MB loaded at start) in ${built.ms} ms`
  )
}
