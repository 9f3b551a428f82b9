import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { type StartedSim, startSim } from "@usine/github-sim/startSim"

const LOGIN = "usine-bot"
export const LABEL = "ready-for-agent"
export const SAMPLE_REPOSITORY = join(dirname(dirname(dirname(fileURLToPath(import.meta.url)))), "apps", "usine", "demo", "sample-repo")

/**
 * The Agent that takes no time: one appended line in one file, no commit (the daemon commits what an agent leaves).
 * It prints when it started and ended, so the ledger's transcript shows how long after its turn began it ran.
 */
export const AGENT_ARGV: ReadonlyArray<string> = [
  "sh",
  "-c",
  'echo "agent started $(date +%s%3N)"; echo "change for $(head -c 60 "$USINE_PROMPT_FILE" 2>/dev/null)" >> BENCH.md; echo "agent ended $(date +%s%3N)"'
]

/** The emulator on 127.0.0.1 with the daemon's user (rate limits out of the way); closed with the scope. */
export const benchSim = Effect.gen(function* () {
  const sim = yield* Effect.acquireRelease(
    Effect.promise(() => startSim()),
    (s: StartedSim) => Effect.promise(() => s.close())
  )
  const { token } = yield* Effect.promise(() => sim.control.createUser({ login: LOGIN, permission: "write" }))
  for (const resource of ["core", "graphql"] as const) {
    yield* Effect.promise(() => sim.control.setRateLimit({ login: LOGIN, resource, limit: 10_000_000 }))
  }
  return { sim, token }
})

/** A repository seeded with the demo's sample project and `items` open issues already carrying the Loop's label. */
export const benchRepository = (sim: StartedSim, owner: string, name: string, items: number) =>
  Effect.promise(async () => {
    const created = await sim.control.createRepository({ owner, name, seedDirectory: SAMPLE_REPOSITORY })
    for (let i = 1; i <= items; i++) {
      await sim.control.createIssue({ repo: `${owner}/${name}`, title: `Bench item ${i}`, body: `Change item ${i}.`, labels: [LABEL] })
    }
    return created
  })

/** A port the OS just handed out free, for the Board. */
export const freePort = Effect.async<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** `USINE_BENCH_SANDBOX=none` runs the row with the Worker's sandbox off, to measure what the sandbox costs a Run. */
const sandboxLine = () => {
  const sandbox = process.env["USINE_BENCH_SANDBOX"]
  return sandbox === undefined || sandbox === "" ? "" : `    sandbox: ${sandbox}\n`
}

/** usine.yaml for one row: a one-second poll, one Loop without approval or verify, one local Worker with `slots`. */
export const usineYaml = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly repository: string
  readonly boardPort: number
  readonly workspaces: string
  readonly slots: number
}) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${options.repository}]
poll_interval: 1s
ledger: state/ledger.db
labels:
  - {name: ${LABEL}, color: "0e8a16"}
board:
  listen: 127.0.0.1:${options.boardPort}
agents:
  noop:
    harness: command
    command: ${JSON.stringify(AGENT_ARGV)}
workers:
  local:
    root: ${JSON.stringify(options.workspaces)}
    max_concurrent_attempts: ${options.slots}
${sandboxLine()}loops:
  - name: bench
    on: issues
    if: '"${LABEL}" in item.labels && item.state == "open"'
    prompt: "Work on #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: noop
    approval: none
`
