import { execFile } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { packCli } from "../scripts/packCli"
import { freePort } from "./support/freePort"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

const run = promisify(execFile)

/** The environment without what pnpm and Vitest pass to their children as npm settings (`npm_config_*`). */
const plainEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")))

describe("the usine package", () => {
  // Issue 34's Done-when: the tarball, installed by npm into an empty prefix, runs the demo from an empty folder
  // outside the repository. npm fetches the dependencies from the registry (its cache first); better-sqlite3
  // downloads its prebuilt addon from GitHub, or compiles it where GitHub is out of reach.
  it.scopedLive("npm-installed into an empty prefix, `usine --version` and `usine demo --auto-approve --exit-after 1` work from an empty folder", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const prefix = join(dir, "prefix")
      const elsewhere = join(dir, "elsewhere")
      mkdirSync(prefix)
      mkdirSync(elsewhere)
      const packed = yield* Effect.promise(() => packCli(dir))
      assert.match(packed.tarball, /usine-\d+\.\d+\.\d+\.tgz$/)
      // Each command's work is a chunk loaded when it runs (ADR 0095), and so is the CLI's parser (ADR 0108): what
      // every start reads is the entry, which answers `--version` itself, and the version (3 KB); @effect/cli and
      // the effect it needs (1.8 MB) load for any other command.
      assert.isBelow(packed.startupBytes, 20_000, "what usine loads before it knows the command")

      const installStarted = Date.now()
      yield* Effect.promise(() =>
        run("npm", ["install", "--global", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", packed.tarball], {
          cwd: elsewhere,
          env: plainEnv(),
          maxBuffer: 16 * 1024 * 1024
        })
      )
      const installSeconds = (Date.now() - installStarted) / 1000
      console.log(
        `usine ${packed.version}: tarball ${(packed.bytes / 1e6).toFixed(1)} MB, packed in ${packed.ms} ms, npm install ${installSeconds.toFixed(1)} s`
      )

      const usine = join(prefix, "bin", "usine")
      const versionStarted = Date.now()
      const version = yield* Effect.promise(() => run(usine, ["--version"], { cwd: elsewhere, env: plainEnv() }))
      assert.strictEqual(version.stdout.trim(), packed.version)
      console.log(`usine --version from the package: ${Date.now() - versionStarted} ms (once, cold)`)

      const port = yield* freePort
      const demoStarted = Date.now()
      const demo = yield* startUsine(elsewhere, ["demo", "--auto-approve", "--exit-after", "1", "--port", String(port)], {}, usine)
      assert.strictEqual(yield* demo.exit("240 seconds"), 0, demo.stdout() + demo.stderr())
      console.log(`usine demo from the package: exit 0 in ${((Date.now() - demoStarted) / 1000).toFixed(1)} s`)
      assert.include(demo.stdout(), "agent   the real Pi coding agent", "the package's Pi CLI runs the demo")
      assert.match(demo.stdout(), /\d+ pull requests? open:\n  #\d+ (Add deslugify|Strip punctuation in slugify) http:\/\/127\.0\.0\.1:\d+\/demo\/slugger\/pull\/\d+/)
      assert.strictEqual(demo.stderr(), "")
    }), 900_000)
})
