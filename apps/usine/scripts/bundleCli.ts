/**
 * Builds the CLI into one ES module (ADR 0087): `dist/cli/usine.mjs`, two folders below the app like `src/demo/`, so
 * the paths the sources resolve against `import.meta.url` (the demo's sample repository, the Pi CLI) land where
 * they do from the sources. Packages that read their own files or load a native addon stay outside the bundle and
 * resolve from the app's `node_modules`. Written to a temporary file and renamed, so a run that starts a daemon
 * meanwhile reads either the old bundle or the new one, never half of one.
 */
import { renameSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const app = fileURLToPath(new URL("..", import.meta.url))

export const CLI_BUNDLE = fileURLToPath(new URL("../dist/cli/usine.mjs", import.meta.url))

/** Left to Node's resolution: a native addon, a package reading files beside itself, the agents' CLIs. */
const EXTERNAL = ["better-sqlite3", "@octokit/graphql-schema", "@mariozechner/pi-coding-agent", "playwright-core"]

export const bundleCli = async (outfile: string = CLI_BUNDLE): Promise<{ readonly file: string; readonly bytes: number; readonly ms: number }> => {
  const started = Date.now()
  const partial = `${outfile}.${process.pid}.tmp`
  const result = await build({
    absWorkingDir: app,
    entryPoints: ["src/main.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: partial,
    external: EXTERNAL,
    tsconfig: fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url)),
    // Run as a program by the package's `bin` (ADR 0095); some bundled CommonJS packages call `require` for Node's own
    // modules.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as usineCreateRequire } from 'node:module'; const require = usineCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: "warning"
  })
  renameSync(partial, outfile)
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0)
  return { file: outfile, bytes, ms: Date.now() - started }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await bundleCli()
  console.log(`${built.file}: ${(built.bytes / 1e6).toFixed(1)} MB in ${built.ms} ms`)
}
