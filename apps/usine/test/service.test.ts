import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { daemonConfig, loop } from "./support/daemonConfig"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"
import { USINE_BIN } from "./support/usineBin"

const run = promisify(execFile)

const has = (program: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * A usine.yaml in a folder whose name a unit file must quote (a space, a `%`, a `$`); its two Loops bound their
 * Attempts to 20 and 45 minutes, so the drain takes 45 minutes at most and the stop waits 45 + 2.
 */
const configIn = (dir: string) => {
  const folder = join(dir, "my usine %i $HOME")
  mkdirSync(folder)
  const bounded = (text: string, minutes: number) => `${text}\n    max_attempt_minutes: ${minutes}`
  const yaml = daemonConfig({
    apiUrl: "http://127.0.0.1:9",
    token: "not-a-real-token",
    boardPort: 8787,
    workspaces: join(dir, "workspaces"),
    loops: [bounded(loop("fix", "ready-for-agent"), 20), bounded(loop("docs", "docs"), 45)]
  })
  writeFileSync(join(folder, "usine.yaml"), yaml)
  return { folder, config: join(folder, "usine.yaml") }
}

const usine = (cwd: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const child = yield* startUsine(cwd, args, env)
    const code = yield* child.exit("60 seconds")
    return { code, stdout: child.stdout(), stderr: child.stderr() }
  })

describe("usine service (issue 34)", () => {
  it.scoped("install writes the systemd user unit under $XDG_CONFIG_HOME, which systemd-analyze verifies; uninstall removes it and its enablement", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const { folder, config } = configIn(dir)
      const xdg = join(dir, "xdg")
      const env = { XDG_CONFIG_HOME: xdg, GITHUB_TOKEN: "" }

      const printed = yield* usine(dir, ["service", "install", "--manager", "systemd", "--config", config, "--print"], env)
      assert.strictEqual(printed.code, 0, printed.stderr)
      const unit = printed.stdout
      assert.isFalse(existsSync(join(xdg, "systemd")), "--print writes nothing")
      const lines = unit.split("\n")
      const quoted = (path: string) => `"${path.replaceAll("%", "%%").replaceAll("$", () => "$$")}"`
      for (const line of [
        "[Service]",
        `ExecStart=${process.execPath} ${USINE_BIN} up --config ${quoted(config)}`,
        `WorkingDirectory=${folder.replaceAll("%", "%%")}`,
        "Restart=on-failure",
        "KillSignal=SIGTERM",
        "KillMode=process",
        `TimeoutStopSec=${45 * 60 + 120}`,
        "StandardOutput=journal",
        "StandardError=journal",
        "WantedBy=default.target"
      ]) assert.include(lines, line, unit)

      const installed = yield* usine(dir, ["service", "install", "--manager", "systemd", "--config", config], env)
      assert.strictEqual(installed.code, 0, installed.stderr)
      const file = join(xdg, "systemd", "user", "usine.service")
      assert.strictEqual(readFileSync(file, "utf8"), unit)
      assert.include(installed.stdout, `wrote ${file}\n`)
      assert.include(installed.stdout, "systemctl --user enable --now usine.service")

      if (has("systemd-analyze")) {
        // Debian's systemd parses the unit as its user manager would: no warning, and ExecStart's programs exist.
        const runtime = join(dir, "runtime")
        mkdirSync(runtime, { mode: 0o700 })
        const verified = yield* Effect.promise(() =>
          run("systemd-analyze", ["verify", "--user", file], { env: { ...process.env, XDG_RUNTIME_DIR: runtime } }).then(
            (out) => ({ code: 0, ...out }),
            (error: { code: number; stdout: string; stderr: string }) => error
          )
        )
        assert.deepStrictEqual([verified.code, verified.stderr], [0, ""], verified.stdout)
      } else console.log("systemd-analyze is not installed: the unit was not verified by systemd")

      // What `systemctl --user enable` makes: uninstall takes it away with the unit.
      const wants = join(xdg, "systemd", "user", "default.target.wants")
      mkdirSync(wants)
      symlinkSync(file, join(wants, "usine.service"))
      const removed = yield* usine(dir, ["service", "uninstall", "--manager", "systemd"], env)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.include(removed.stdout, `removed ${file}\n`)
      assert.isFalse(existsSync(file))
      assert.deepStrictEqual(readdirSync(wants), [], "the enablement link is gone")
      const again = yield* usine(dir, ["service", "uninstall", "--manager", "systemd"], env)
      assert.deepStrictEqual([again.code, again.stdout.trim()], [0, `${file} does not exist: nothing to remove`])
    }), 120_000)

  it.scoped("install writes a launchd agent under ~/Library/LaunchAgents: a well-formed plist with the keys launchd needs", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const { folder, config } = configIn(dir)
      const home = join(dir, "home")
      mkdirSync(home)
      const env = { HOME: home, GITHUB_TOKEN: "" }
      const installed = yield* usine(dir, ["service", "install", "--manager", "launchd", "--name", "work", "--config", config], env)
      assert.strictEqual(installed.code, 0, installed.stderr)
      const file = join(home, "Library", "LaunchAgents", "local.usine.work.plist")
      assert.include(installed.stdout, `launchctl bootstrap gui/$(id -u) ${file}`)
      assert.isTrue(existsSync(join(home, "Library", "Logs", "usine")), "launchd does not create the logs' folder")
      if (has("python3")) {
        // plistlib parses Apple's XML property lists (plutil is macOS only).
        const { stdout } = yield* Effect.promise(() =>
          run("python3", ["-c", "import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))))", file])
        )
        assert.deepStrictEqual(JSON.parse(stdout), {
          Label: "local.usine.work",
          ProgramArguments: [process.execPath, USINE_BIN, "up", "--config", config],
          WorkingDirectory: folder,
          EnvironmentVariables: { PATH: process.env["PATH"] },
          RunAtLoad: true,
          KeepAlive: { SuccessfulExit: false },
          ThrottleInterval: 10,
          ExitTimeOut: 45 * 60 + 120,
          AbandonProcessGroup: true,
          ProcessType: "Background",
          StandardOutPath: join(home, "Library", "Logs", "usine", "work.log"),
          StandardErrorPath: join(home, "Library", "Logs", "usine", "work.err.log")
        })
      } else console.log("python3 is not installed: the plist was not parsed")
      const removed = yield* usine(dir, ["service", "uninstall", "--manager", "launchd", "--name", "work"], env)
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.include(removed.stdout, "launchctl bootout gui/$(id -u)/local.usine.work")
      assert.isFalse(existsSync(file))
    }), 120_000)

  it.scoped("install refuses a usine.yaml that does not load, and a name a unit cannot have, writing nothing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const xdg = join(dir, "xdg")
      writeFileSync(join(dir, "usine.yaml"), "repositories: [acme/widgets]\nunknown_key: 1\n")
      const bad = yield* usine(dir, ["service", "install", "--manager", "systemd"], { XDG_CONFIG_HOME: xdg })
      assert.strictEqual(bad.code, 1)
      assert.include(bad.stderr, "unknown_key")
      const { config } = configIn(dir)
      const badName = yield* usine(dir, ["service", "install", "--manager", "systemd", "--name", "../evil", "--config", config], { XDG_CONFIG_HOME: xdg, GITHUB_TOKEN: "" })
      assert.strictEqual(badName.code, 1)
      assert.strictEqual(badName.stderr.trim(), `usine service install: --name "../evil": use letters, digits, '_', '.' and '-'`)
      assert.isFalse(existsSync(xdg))
    }), 120_000)
})
