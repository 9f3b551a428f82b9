import { fileURLToPath } from "node:url"

export const REPOSITORY = "acme/widgets"
export const BOARD_TOKEN = "board-token-for-tests-0123456789abcdef"
export const AGENT = fileURLToPath(new URL("../../demo/agent.mjs", import.meta.url))
export const SAMPLE_REPOSITORY = fileURLToPath(new URL("../../demo/sample-repo", import.meta.url))

/** A Loop on issues carrying `label`, run by the demo's scripted agent. */
export const loop = (name: string, label: string, approval: "required" | "none" = "required") => `
  - name: ${name}
    on: issues
    if: '"${label}" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: ${approval}`

/** A usine.yaml for a daemon under test: the emulator, a one-second poll, the demo's agent, the Board with a token. */
export const daemonConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly workspaces: string
  readonly loops: ReadonlyArray<string>
  readonly extra?: string
  /** Seconds the agent waits before it starts working, to catch an Attempt while it runs. */
  readonly agentDelay?: number
  /** The `ledger:` value (YAML), `state/ledger.db` by default. */
  readonly ledger?: string
}) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: ${options.ledger ?? "state/ledger.db"}
${options.extra ?? ""}
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
agents:
  demo:
    harness: command
    command: ${
  options.agentDelay === undefined
    ? `[${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]`
    : `[sh, -c, ${JSON.stringify(`sleep ${options.agentDelay}; exec '${process.execPath}' '${AGENT}'`)}]`
}
workers:
  local:
    root: ${JSON.stringify(options.workspaces)}
loops:${options.loops.join("")}
`
