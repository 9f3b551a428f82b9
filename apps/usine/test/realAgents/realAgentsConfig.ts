import { BOARD_TOKEN, REPOSITORY } from "../support/daemonConfig"

/** One Loop on the issues labelled with its name, run by its own Agent on its own model endpoint. */
export interface RealAgentLoop {
  readonly name: string
  readonly agent: string
  readonly baseUrl: string
  readonly stallMinutes: number
  /** The Loop's `budget` as a YAML flow mapping; none when absent. */
  readonly budget?: string
}

const list = (words: ReadonlyArray<string>) => `[${words.map((w) => JSON.stringify(w)).join(", ")}]`

/**
 * A usine.yaml with a real agent CLI per Loop, each Agent pointed at a model endpoint through `provider`: every
 * Loop starts without approval, verifies with the sample project's tests, and stalls after its own `stall_minutes`.
 */
export const realAgentsConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly workspaces: string
  readonly harness: "pi" | "codex" | "claude"
  readonly command: ReadonlyArray<string>
  readonly agentEnv?: Readonly<Record<string, string>>
  readonly keyVariable: string
  readonly budget?: string
  /** The Worker is `remote`, reached over ssh at this host (an alias of the ssh config the daemon's ssh reads). */
  readonly sshHost?: string
  readonly loops: ReadonlyArray<RealAgentLoop>
}) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: state/ledger.db${options.budget === undefined ? "" : `
budget: ${options.budget}`}
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
agents:${options.loops.map((loop) => `
  ${loop.agent}:
    harness: ${options.harness}
    command: ${list(options.command)}
    provider: {base_url: ${JSON.stringify(loop.baseUrl)}, api_key_env: ${options.keyVariable}, model: sim-model}${
      options.agentEnv === undefined ? "" : `
    env: ${JSON.stringify(options.agentEnv)}`}`).join("")}
workers:
  ${options.sshHost === undefined ? "local:" : `remote:
    type: ssh
    host: ${options.sshHost}`}
    max_concurrent_attempts: ${options.loops.length}
    root: ${JSON.stringify(options.workspaces)}
loops:${options.loops.map((loop) => `
  - name: ${loop.name}
    on: issues
    if: '"${loop.name}" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: ${loop.agent}
    approval: none
    retry_backoff: [1s]
    verify: ["node --test"]
    stall_minutes: ${loop.stallMinutes}${loop.budget === undefined ? "" : `
    budget: ${loop.budget}`}`).join("")}
`
