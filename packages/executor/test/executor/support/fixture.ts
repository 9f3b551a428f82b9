import { Effect, Layer, Redacted, Schedule } from "effect"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Attempt } from "@usine/core/attempt/Attempt"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { WorkerSandbox } from "@usine/core/config/WorkerConfig"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { EventId } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { runIdOf } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Running } from "@usine/core/run/state"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import type { AttemptPolicy, AttemptRequest } from "@usine/engine/Executor"
import { GitHubClient } from "@usine/github/GitHubClient"
import { bareRepositoryPath } from "@usine/github-sim/git/BareRepository"
import { runGit } from "@usine/github-sim/git/runGit"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import * as WorkerExecutor from "../../../src/WorkerExecutor"
import * as LocalTransport from "../../../src/LocalTransport"
import { WorkerDirectory } from "../../../src/WorkerDirectory"
import { PullRequests } from "@usine/github/PullRequests"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

export const REPOSITORY = "acme/widgets"
const AGENT_SCRIPT = fileURLToPath(new URL("../fixtures/agent.sh", import.meta.url))

/** The scripted agent in one mode, committing as a made-up person. */
export const scriptedAgent = (mode: string, values: Record<string, string> = {}): AgentConfig => {
  // A root daemon's agent runs as another uid (ADR 0084): a folder it cannot read would be shown as a copy made at
  // start, and the gate is created later. Open to read, it is shown live.
  if (values["GATE"] !== undefined && fs.existsSync(path.dirname(values["GATE"]))) fs.chmodSync(path.dirname(values["GATE"]), 0o755)
  return scriptedAgentConfig(mode, values)
}

const scriptedAgentConfig = (mode: string, values: Record<string, string>): AgentConfig => ({
  harness: "command",
  command: ["sh", AGENT_SCRIPT],
  // The test's gate file lives outside the worktree: the sandbox shows its folder, read-only, as it would a login file.
  ...(values["GATE"] === undefined ? {} : { sandboxReadOnly: [path.dirname(values["GATE"])] }),
  env: {
    inherit: [],
    values: {
      AGENT_MODE: mode,
      GIT_AUTHOR_NAME: "Scripted Agent",
      GIT_AUTHOR_EMAIL: "agent@example.invalid",
      GIT_COMMITTER_NAME: "Scripted Agent",
      GIT_COMMITTER_EMAIL: "agent@example.invalid",
      ...values
    }
  }
})

const MODES = ["edit", "fix-after-feedback", "slow", "hang", "resume", "workflow", "secret", "nothing", "self-pr", "diffstat", "shadow"] as const

export const policy = (patch: Partial<AttemptPolicy> = {}): AttemptPolicy => ({
  verify: [],
  verifyRounds: 2,
  forbiddenPaths: [".github/workflows/**"],
  maxChangedFiles: undefined,
  maxAttemptMinutes: undefined,
  stallMinutes: undefined,
  kind: "issues",
  ...patch
})

/** A Running Run of the `start-dev` Loop on issue #1, with a fresh id. */
export const makeRun = (agent: string, patch: Partial<ConstructorParameters<typeof Run>[0]> = {}) =>
  new Run({
    id: runIdOf(EventId(randomBytes(8).toString("hex"))),
    eventId: EventId("test-event"),
    loop: "start-dev",
    itemKey: itemKeyOf(REPOSITORY, 1),
    repository: REPOSITORY,
    number: 1,
    generation: 0,
    state: new Running(),
    version: 1,
    task: "Build the widget",
    agent,
    approvalRequired: false,
    receivedAt: 0,
    createdAt: 0,
    updatedAt: 0,
    ...patch
  })

export const makeAttempt = (run: Run, number: number) =>
  new Attempt({ id: attemptIdOf(run.id, number), runId: run.id, step: "main", number, startedAt: Date.now(), worker: "local" })

/** An Attempt request whose transcript rows and session handles land in arrays, like the ledger would keep them. */
export const recorder = () => {
  const rows: Array<TranscriptEntry> = []
  const sessions: Array<string> = []
  const request = (
    run: Run,
    attempt: Attempt,
    attemptPolicy: AttemptPolicy,
    reattach = false
  ): AttemptRequest => ({
    run,
    attempt,
    worker: "local",
    reattach,
    transcriptRowsStored: rows.length,
    policy: attemptPolicy,
    onTranscript: (entries) => Effect.sync(() => void rows.push(...entries)),
    onSession: (handle) => Effect.sync(() => void sessions.push(handle))
  })
  return { rows, sessions, request }
}

/**
 * The GitHub emulator with `acme/widgets` (README on main), issue #1, usine's account, and a WorkerExecutor on a
 * Worker root in a temp dir running the scripted agent in every mode (the Agent's name is the mode).
 */
/** The harvest retry of the tests: three more tries, 50 ms apart, instead of minutes. */
const quickHarvestRetry = Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

export const setup = (
  options: {
    readonly daemonEnv?: Record<string, string | undefined>
    readonly agents?: Record<string, AgentConfig>
    readonly harvestRetryPolicy?: Schedule.Schedule<unknown>
    /** The Worker's `sandbox`; the default (bubblewrap) when absent. */
    readonly sandbox?: WorkerSandbox
    /** The Worker root; `<temp dir>/worker` when absent. */
    readonly root?: string
  } = {}
) =>
  Effect.gen(function* () {
    const sim = yield* GitHubSim
    const account = yield* sim.control.createUser({ login: "usine-bot", permission: "write" })
    yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n" } })
    yield* sim.control.createIssue({ repo: REPOSITORY, title: "Build the widget" })
    const dir = yield* scopedTempDir("usine-localexec-")
    const root = options.root ?? path.join(dir, "worker")
    // Where the Worker reaches git over HTTP: the emulator, or a closed port while a test takes git down.
    const git = { base: sim.url }
    const token = Redacted.make(account.token)
    const client = GitHubClient.Default({ token, apiUrl: sim.url, retries: 0 })
    const agents = { ...Object.fromEntries(MODES.map((mode) => [mode, scriptedAgent(mode)])), ...options.agents }
    const executorOptions: WorkerExecutor.WorkerExecutorOptions = {
      agent: (name) => agents[name],
      workers: WorkerDirectory.of({ local: { transport: LocalTransport.make(), root, ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }) } }),
      token,
      cloneUrl: (repository) => `${git.base}/${repository}.git`,
      pollInterval: "30 millis",
      stopGraceMs: 2_000,
      harvestRetryPolicy: options.harvestRetryPolicy ?? quickHarvestRetry,
      ...(options.daemonEnv === undefined ? {} : { daemonEnv: options.daemonEnv })
    }
    /** Another daemon on the same Worker root: its own executor and GitHub client (octokit spaces one client's writes). */
    const daemon = Effect.gen(function* () {
      const layer = Layer.provide(PullRequests.github, GitHubClient.Default({ token, apiUrl: sim.url, retries: 0 }))
      const pullRequests = yield* Effect.provide(PullRequests, layer)
      const executor = yield* WorkerExecutor.make(executorOptions).pipe(Effect.provideService(PullRequests, pullRequests))
      return { executor, pullRequests }
    })
    const { executor, pullRequests } = yield* daemon
    const github = yield* Effect.provide(GitHubClient, client)
    const bare = bareRepositoryPath(sim.dataDir, "acme", "widgets")
    return {
      sim,
      account,
      dir,
      root,
      executor,
      executorOptions,
      pullRequests,
      daemon,
      /** Every pull request of the repository, open or closed. */
      pulls: github
        .request("GET /repos/{owner}/{repo}/pulls", { owner: "acme", repo: "widgets", state: "all" })
        .pipe(Effect.map((response) => response.data), Effect.orDie),
      /** Git over HTTP cannot reach GitHub from the Worker (a closed port), or can again. */
      setGitReachable: (reachable: boolean) => {
        git.base = reachable ? sim.url : "http://127.0.0.1:9"
      },
      /** Runs git on the emulator's bare repository. */
      origin: (...args: Array<string>) => execFileSync("git", ["--git-dir", bare, ...args], { encoding: "utf8" }).trim(),
      branches: () =>
        execFileSync("git", ["--git-dir", bare, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads"], { encoding: "utf8" })
          .split("\n")
          .filter((line) => line !== "")
    }
  })

/** Pushes a branch with one commit to the emulator, as a person would; returns its sha. */
export const pushBranch = (t: Effect.Effect.Success<ReturnType<typeof setup>>, branch: string) =>
  Effect.gen(function* () {
    const clone = path.join(t.dir, `clone-${branch.replace(/\W/g, "-")}`)
    yield* runGit(["clone", "-q", t.sim.authenticatedCloneUrl(REPOSITORY, t.account.token), clone])
    yield* runGit(["-C", clone, "checkout", "-q", "-b", branch])
    fs.writeFileSync(path.join(clone, "change.txt"), `${branch}\n`)
    yield* runGit(["-C", clone, "add", "-A"])
    yield* runGit(["-C", clone, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", `change on ${branch}`])
    yield* runGit(["-C", clone, "push", "-q", "origin", branch])
    return (yield* runGit(["-C", clone, "rev-parse", "HEAD"])).trim()
  }).pipe(Effect.orDie)

/** The emulator for one test. */
export const simLayer = GitHubSim.layer()
