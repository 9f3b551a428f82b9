import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Option } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import type { StartedSim } from "@usine/github-sim/startSim"
import { daemonConfig, REPOSITORY, SAMPLE_REPOSITORY } from "../../support/daemonConfig"
import { freePort } from "../../support/freePort"
import { board, eventually } from "../../support/http"
import { botAndRepository, scopedDir, scopedSim } from "../../support/scopedSim"
import { startUsine, type UsineProcess } from "../../support/UsineProcess"
import { type LoopbackListener, scopedListener } from "./LoopbackListener"

const SCRIPT = readFileSync(fileURLToPath(new URL("./hostileAgent.sh", import.meta.url)), "utf8")

export interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly number?: number; readonly loop: string; readonly state: string }> }
}

export const TERMINAL = ["Succeeded", "Failed", "Canceled"]

/** One daemon under attack, and everything the proofs read. */
export interface HostileDaemon {
  readonly dir: string
  readonly sim: StartedSim
  readonly token: string
  readonly usine: UsineProcess
  readonly board: string
  readonly listener: LoopbackListener
  /** Where a program the agent planted would leave its mark, were it run (as the daemon: the agent never runs one). */
  readonly markers: string
  /** Where the agent keeps what it found. */
  readonly loot: string
  readonly workerRoot: string
  /** The emulator's own git directory of the repository: every branch anything pushed. */
  readonly remoteGitDir: string
}

/**
 * `usine up` against the emulator with a `command` agent that does the attack its issue names (`attack <title>`),
 * the GitHub token in `github.token_file` and in the daemon's environment, as a user would have it, a hostile
 * loopback listener the agent knows, and `loops` (default: `hostile`, on issues labelled `hostile`, no approval).
 * The agent's own raw output, which may hold what it stole, goes before the logs are archived (ADR 0043).
 */
export const hostileDaemon = (options: {
  readonly loops?: string
  readonly slots?: number
  /**
   * `none`: the agent runs unconfined, as the daemon's user. usine does not confine such an agent (ADR 0054): it
   * could write the daemon's own files. What stays true is that nothing it sets in its own clone reaches the daemon's
   * git (ADR 0053), so there the agent is not told where the other git directories are.
   */
  readonly sandbox?: "none"
  /** More of the Agent's `env`: a credential-named value is one the daemon registers as a secret. */
  readonly env?: Readonly<Record<string, string>>
  /** More variables for the agent (an attack's size). */
  readonly agentEnv?: Readonly<Record<string, string>>
  /** The agent's script: `hostileAgent.sh` unless given (another file of `support/`). */
  readonly script?: string
  /** More keys of the Worker, each line indented as under `workers.local` (`limits:`, `sandbox_uid:`). */
  readonly workerKeys?: string
} = {}) =>
  Effect.gen(function* () {
    const dir = yield* scopedDir
    const sim = yield* scopedSim
    const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
    const listener = yield* scopedListener
    const markers = join(dir, "markers")
    const loot = join(dir, "loot")
    const workerRoot = join(dir, "workspaces")
    mkdirSync(markers)
    mkdirSync(join(dir, "secrets"), { mode: 0o700 })
    const tokenFile = join(dir, "secrets", "github-token")
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 })
    chmodSync(tokenFile, 0o600)
    const env = { MARKERS: markers, LOOT: loot, LISTENER: listener.url, EMULATOR: sim.url, WORKER_ROOT: options.sandbox === "none" ? join(dir, "not-told") : workerRoot, DAEMON_DIR: dir, ...options.env, ...options.agentEnv }
    // `$${` is usine.yaml's literal `${`.
    const script = options.script === undefined ? SCRIPT : readFileSync(fileURLToPath(new URL(`./${options.script}`, import.meta.url)), "utf8")
    const agent = `  hostile:\n    harness: command\n    command: [sh, -c, ${JSON.stringify(script.replaceAll("${", () => "$${"))}]\n    env: ${JSON.stringify(env)}\n`
    const loops = options.loops ?? `
  - name: hostile
    on: issues
    if: '"hostile" in item.labels'
    prompt: "attack {{ item.title }} on #{{ item.number }}"
    agent: hostile
    approval: none
    retry_backoff: [1s]`
    const config = daemonConfig({
      apiUrl: sim.url,
      token,
      boardPort: yield* freePort,
      workspaces: workerRoot,
      extra: "labels:\n  - {name: hostile, color: \"d93f0b\"}",
      loops: [loops]
    })
      // Replaced by functions: a replacement string would read the script's `$$` as `$`.
      .replace(`  token: ${token}\n`, () => `  token_file: ${JSON.stringify(tokenFile)}\n`)
      .replace("agents:\n", () => `agents:\n${agent}`)
      .replace(`root: ${JSON.stringify(workerRoot)}\n`, () => `root: ${JSON.stringify(workerRoot)}\n    max_concurrent_attempts: ${options.slots ?? 2}\n${
        options.sandbox === undefined ? "" : `    sandbox: ${options.sandbox}\n`
      }${options.workerKeys ?? ""}`)
    writeFileSync(join(dir, "usine.yaml"), config)
    const usine = yield* startUsine(dir, ["up"], { GITHUB_TOKEN: token })
    // Runs before the archive (finalizers run last first): the agent's raw output holds what it printed.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        mkdirSync(loot, { recursive: true })
        writeFileSync(join(loot, "stop"), "")
        for (const file of filesUnder(workerRoot)) {
          if (/\.log(\.\d+)?$|\.jsonl$/.test(file) && readFileSync(file, "latin1").includes(token)) rmSync(file, { force: true })
        }
      }).pipe(Effect.ignore)
    )
    const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
    return {
      dir, sim, token, usine, board: url, listener, markers, loot, workerRoot,
      remoteGitDir: join(sim.dataDir, "git", "acme", "widgets.git")
    } satisfies HostileDaemon
  })

/** Every file under `dir`, none when it is gone. */
export const filesUnder = (dir: string): ReadonlyArray<string> => {
  try {
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
  } catch {
    return []
  }
}

/** Opens an issue titled `attack` and labels it: its Run's agent does that attack. Returns the issue number. */
export const attack = (daemon: HostileDaemon, name: string, label = "hostile") =>
  Effect.promise(async () => {
    const issue = await daemon.sim.control.createIssue({ repo: REPOSITORY, title: name, body: "" })
    await daemon.sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: [label] })
    return issue.number
  })

/**
 * Waits until each issue's Run has ended, then reads its page's JSON twin. A Run still open after `seconds` is
 * read as it is (its test then says what state it was left in); an issue without a Run gives `undefined`.
 */
export const settledRuns = (daemon: HostileDaemon, numbers: ReadonlyArray<number>, seconds = 120) =>
  Effect.gen(function* () {
    const listing = Effect.map(board<RunsJson>(daemon.board, "/api/runs"), ({ page }) => numbers.map((n) => page.runs.find((r) => r.number === n)))
    const runs = yield* eventually(
      `the Runs of #${numbers.join(", #")} ended`,
      Effect.map(listing, (found) => (found.every((r) => r !== undefined && TERMINAL.includes(r.state)) ? Option.some(found) : Option.none())),
      seconds
    ).pipe(Effect.catchAll(() => listing))
    return yield* Effect.forEach(runs, (run) => (run === undefined ? Effect.succeed(undefined) : board<RunView>(daemon.board, `/api/runs/${run.id}`)))
  })

/** The Run an attack's issue opened, as the Board showed it once it ended. */
export const runOf = (runs: ReadonlyMap<string, RunView | undefined>, name: string): RunView => {
  const view = runs.get(name)
  if (view === undefined) throw new Error(`the ${name} attack's issue opened no Run`)
  return view
}
