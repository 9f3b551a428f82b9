import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { version } from "../package.json"
import { knownMigrations } from "../src/ledger/LedgerMigrations"
import { daemonConfig, loop } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { startUsine } from "./support/UsineProcess"
import { upIn, upWorld } from "./support/upWorld"
import { sshdAvailable, sshServer } from "../../../packages/executor/test/sshServer"

/** A PATH holding every program of /usr/bin but bwrap: a host without bubblewrap, as the sandbox e2e test makes it. */
const pathWithoutBwrap = (dir: string) => {
  const bin = join(dir, "no-bwrap-bin")
  mkdirSync(bin)
  for (const name of readdirSync("/usr/bin")) if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name))
  return bin
}

const doctorIn = (dir: string, yaml: string, env: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    yield* Effect.sync(() => writeFileSync(join(dir, "usine.yaml"), yaml))
    const usine = yield* startUsine(dir, ["doctor"], env)
    const code = yield* usine.exit("90 seconds")
    if (process.env["USINE_DOCTOR_PRINT"] === "1") console.log(usine.stdout())
    return { code, lines: usine.stdout().split("\n").filter((line) => line !== ""), stderr: usine.stderr() }
  })

/** The store's newest migration, as the ledger's rows name it. */
const LATEST_MIGRATION = Effect.runSync(Effect.map(knownMigrations, (known) => {
  const latest = known.at(-1)!
  return `${String(latest.id).padStart(4, "0")}_${latest.name}`
}))

const failures = (lines: ReadonlyArray<string>) => lines.filter((line) => line.startsWith("✗"))

describe("usine doctor", () => {
  it.scoped(
    "passes every check of a good setup against the emulator, and never prints the token",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        const yaml = daemonConfig({
          apiUrl: world.sim.url,
          token: world.token,
          boardPort: world.port,
          workspaces: join(world.dir, "workspaces"),
          loops: [loop("fix", "ready-for-agent")]
        })
        const { code, lines, stderr } = yield* doctorIn(world.dir, yaml)
        const all = lines.join("\n")
        assert.deepStrictEqual(failures(lines), [], all + stderr)
        assert.strictEqual(code, 0, all + stderr)
        for (const expected of [
          `✓ usine ${version} on Node ${process.versions.node}\n✓ config: usine.yaml loads`,
          `✓ ledger: ${join(world.dir, "state", "ledger.db")} does not exist yet; usine up creates it with`,
          "✓ GitHub at",
          "✓ clock: within",
          "✓ acme/widgets: the token can read it and write issues, contents and pull requests (probed, nothing changed)",
          "✓ worker local: reachable",
          "✓ worker local: the bubblewrap sandbox works; agents run as ",
          // The tests run as root (as CI does): the agent is switched to the default sandbox uid (ADR 0084).
          ...(process.getuid?.() === 0 ? ["run as uid 65534 (the daemon is root there: setpriv switches to it)"] : []),
          "✓ worker local: limits: rlimits by prlimit (",
          "memory 4 GiB a process, 512 processes of the agent's uid, 3600 s CPU a process, files up to 10 GiB; tmpfs /tmp 1 GiB, HOME 1 GiB; worktree up to 10 GiB at harvest",
          "✓ worker local: git",
          "free under",
          "✓ worker local: agent demo:",
          `✓ board: 127.0.0.1:${world.port} is free`
        ])
          assert.include(all, expected)
        assert.notInclude(all + stderr, world.token)
      }),
    120_000
  )

  it.scoped(
    "fails a token lacking Pull requests write, a dead ssh Worker and a Worker without bubblewrap, one ✗ each, with exit 1",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        // A fine-grained token of the bot (whose role writes): GET /repos shows push, only a write probe tells.
        const { token: reader } = yield* Effect.promise(() =>
          world.sim.control.createFineGrainedToken({ login: "usine-bot", permissions: { pull_requests: "read", issues: "write", contents: "write" } })
        )
        const closed = yield* freePort
        const yaml = daemonConfig({
          apiUrl: world.sim.url,
          token: reader,
          boardPort: world.port,
          workspaces: join(world.dir, "workspaces"),
          loops: [loop("fix", "ready-for-agent")]
        }).replace("workers:\n", `workers:\n  remote:\n    type: ssh\n    host: ssh://127.0.0.1:${closed}\n    root: usine-workspaces\n`)
        const { code, lines, stderr } = yield* doctorIn(world.dir, yaml, { PATH: pathWithoutBwrap(world.dir) })
        const all = lines.join("\n")
        const failed = failures(lines)
        assert.strictEqual(failed.length, 3, all + stderr)
        const expected = [
          /^✗ acme\/widgets: the token may not write pull requests \(GitHub refused a harmless probe with 403\): grant Pull requests: read and write to the token$/,
          new RegExp(`^✗ worker remote: unreachable over ssh \\(.*127\\.0\\.0\\.1.*${closed}.*\\)`),
          /^✗ worker local: no working sandbox \(bwrap is not installed\): install bubblewrap/
        ]
        expected.forEach((pattern, n) => assert.match(failed[n] ?? "", pattern, all))
        assert.include(all, "✓ worker local: reachable")
        assert.strictEqual(code, 1, all + stderr)
        assert.notInclude(all + stderr, reader)
        // The probes changed nothing: refused, or invalid once past the permission check.
        const log = yield* Effect.promise(() => world.sim.control.requestLog())
        const writes = log.filter((r) => r.method !== "GET").map((r) => [r.method, r.path.split("?")[0], r.status])
        assert.deepStrictEqual(writes, [["POST", "/repos/acme/widgets/pulls", 403], ["POST", "/repos/acme/widgets/labels", 422]])
      }),
    120_000
  )

  it.scoped(
    "checks each CLI Agent's login where it runs: a key its env hands it, or a login file its sandbox shows; never prints the key",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        const home = join(world.dir, "home")
        mkdirSync(join(home, ".claude"), { recursive: true })
        writeFileSync(join(home, ".claude", ".credentials.json"), '{"claudeAiOauth":{}}')
        const version = (text: string) => `[sh, -c, "echo ${text}"]`
        const agents = [
          "agents:",
          `  claude-shown:\n    harness: claude\n    command: ${version("2.1.0")}\n    sandbox_read_only: ["~/.claude/.credentials.json"]`,
          `  claude-hidden:\n    harness: claude\n    command: ${version("2.1.0")}`,
          `  codex-key:\n    harness: codex\n    command: ${version("codex-cli 0.169.0")}\n    env: [OPENAI_API_KEY]`,
          `  codex-login:\n    harness: codex\n    command: ${version("codex-cli 0.169.0")}`,
          `  pi-out:\n    harness: pi\n    command: ${version("0.73.1")}`,
          ""
        ].join("\n")
        const yaml = daemonConfig({
          apiUrl: world.sim.url,
          token: world.token,
          boardPort: world.port,
          workspaces: join(world.dir, "workspaces"),
          loops: [loop("fix", "ready-for-agent")]
        }).replace("agents:\n", agents)
        const key = "sk-test-doctor-0123456789abcdefghijklmnop"
        const { code, lines, stderr } = yield* doctorIn(world.dir, yaml, { HOME: home, OPENAI_API_KEY: key })
        const all = lines.join("\n")
        assert.include(lines, "✓ worker local: agent claude-shown: logged in (~/.claude/.credentials.json)", all)
        assert.include(lines, "✗ worker local: agent claude-hidden: logged in, but its sandbox hides ~/.claude/.credentials.json: add it to agents.claude-hidden.sandbox_read_only", all)
        assert.include(lines, "✓ worker local: agent codex-key: OPENAI_API_KEY is handed to it (agents.codex-key.env)", all)
        assert.include(lines, "✗ worker local: agent codex-login: no key: grant OPENAI_API_KEY in agents.codex-login.env (usine gives Codex a CODEX_HOME of its own, so a `codex login` is not read)", all)
        assert.include(lines, "✗ worker local: agent pi-out: not logged in and no key: run `pi, then /login` there, or grant ANTHROPIC_API_KEY in agents.pi-out.env", all)
        assert.strictEqual(failures(lines).length, 3, all)
        assert.strictEqual(code, 1)
        assert.notInclude(all + stderr, key)
      }),
    120_000
  )

  it.scoped(
    "says a daemon already serves the Board's port, and fails a broken config with its first error",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        yield* upIn(world, { loops: [loop("fix", "ready-for-agent")] })
        const yaml = daemonConfig({
          apiUrl: world.sim.url,
          token: world.token,
          boardPort: world.port,
          workspaces: join(world.dir, "workspaces"),
          loops: [loop("fix", "ready-for-agent")]
        })
        const running = yield* doctorIn(world.dir, yaml)
        assert.include(running.lines, `✓ board: a usine daemon already runs at http://127.0.0.1:${world.port}`, running.lines.join("\n"))
        assert.strictEqual(running.code, 0, running.lines.join("\n") + running.stderr)
        // Read on a query-only connection beside the daemon that holds the ledger's lock.
        assert.include(running.lines, `✓ ledger: ${join(world.dir, "state", "ledger.db")} is at ${LATEST_MIGRATION}, the latest migration usine ${version} knows`)
        const broken = yield* doctorIn(world.dir, yaml.replace("poll_interval: 1s", "poll_interval: soon"))
        assert.strictEqual(broken.code, 1)
        assert.strictEqual(broken.lines.length, 2, broken.lines.join("\n"))
        assert.strictEqual(broken.lines[0], `✓ usine ${version} on Node ${process.versions.node}`)
        assert.match(broken.lines[1] ?? "", /^✗ config: .*poll_interval.*\(run `usine check usine.yaml` for every problem\)$/)
      }),
    120_000
  )

  it.scoped.skipIf(!sshdAvailable)(
    "says how long one command takes over each ssh Worker, and warns, naming the login shell, when it slows every Attempt",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        const sshDir = join(world.dir, "ssh")
        mkdirSync(sshDir)
        // The slow host's shell spends 400 ms starting up, as one whose ~/.bashrc runs pyenv init does.
        const slowStart = join(sshDir, "slow-start.sh")
        writeFileSync(slowStart, "sleep 0.4\n")
        const hosts: Array<string> = []
        for (const [name, setEnv] of [["quick", {}], ["slow", { BASH_ENV: slowStart }]] as const) {
          mkdirSync(join(sshDir, name))
          const server = yield* sshServer(join(sshDir, name), { setEnv })
          hosts.push(
            `Host ${name}-host\n  HostName 127.0.0.1\n  Port ${server.port}\n  User ${process.env["USER"] ?? "root"}\n  IdentityFile ${join(sshDir, name, "client_key")}\n  UserKnownHostsFile ${server.knownHosts}\n`
          )
        }
        writeFileSync(join(sshDir, "config"), hosts.join(""))
        // The doctor's ssh reads that file through a wrapper first on its PATH; the user's own ssh config is left alone.
        mkdirSync(join(world.dir, "bin"))
        writeFileSync(join(world.dir, "bin", "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F '${join(sshDir, "config")}' "$@"\n`)
        chmodSync(join(world.dir, "bin", "ssh"), 0o755)
        const yaml = daemonConfig({
          apiUrl: world.sim.url,
          token: world.token,
          boardPort: world.port,
          workspaces: join(world.dir, "workspaces"),
          loops: [loop("fix", "ready-for-agent")]
        }).replace(
          "workers:\n",
          `workers:\n  quick:\n    type: ssh\n    host: quick-host\n    root: ${join(world.dir, "quick-root")}\n  slow:\n    type: ssh\n    host: slow-host\n    root: ${join(world.dir, "slow-root")}\n`
        )
        const { lines, stderr } = yield* doctorIn(world.dir, yaml, { PATH: `${join(world.dir, "bin")}:${process.env["PATH"] ?? ""}` })
        const all = lines.join("\n")
        // The quick host's figure is the machine's own ssh round trip: on a loaded CI machine it can pass 250 ms too,
        // so the test compares the two hosts, whose only difference is the 400 ms shell start.
        const quick = lines.find((line) => /^[✓!] worker quick: one command over ssh takes /.test(line))
        assert.isDefined(quick, all + stderr)
        const slow = lines.find((line) => line.startsWith("! worker slow: one command over ssh takes "))
        assert.isDefined(slow, all + stderr)
        const [quickMs, slowMs] = [quick, slow].map((line) => Number(/takes (\d+) ms/.exec(line ?? "")?.[1]))
        assert.isAtLeast(slowMs!, 400, all)
        assert.isAtLeast(slowMs! - quickMs!, 300, `the slow shell's start shows in its figure: ${all}`)
        assert.include(slow, "the login shell on slow-host is slow to start (bash reads ~/.bashrc for every command sshd runs;")
      }),
    120_000
  )
})
