import { fileURLToPath } from "node:url"
import { BOARD_TOKEN, REPOSITORY } from "../../support/daemonConfig"

/** The suite's scripted agent; its first argument picks how it behaves (see the file). */
const QUICK_AGENT = fileURLToPath(new URL("../agents/quickAgent.mjs", import.meta.url))

/** A `command` Agent running the quick agent in `mode`, optionally through another harness's parser. */
export const agent = (mode: string, options: { readonly arg?: string | number; readonly harness?: "command" | "codex" } = {}) =>
  `{harness: ${options.harness ?? "command"}, command: ${JSON.stringify([process.execPath, QUICK_AGENT, mode, ...(options.arg === undefined ? [] : [String(options.arg)])])}}`

interface LoopSpec {
  readonly name: string
  /** `issues` by default. */
  readonly on?: "issues" | "pull_requests"
  /** The label that triggers it. */
  readonly label: string
  readonly agent: string
  readonly verify?: ReadonlyArray<string>
  readonly stallMinutes?: number
  /** 1 by default, which is then the drain's bound too. */
  readonly maxAttemptMinutes?: number
  readonly workers?: ReadonlyArray<string>
  /** Liquid; by default the number and the title. */
  readonly prompt?: string
}

const loopYaml = (loop: LoopSpec) => `
  - name: ${loop.name}
    on: ${loop.on ?? "issues"}
    if: '${JSON.stringify(loop.label)} in item.labels'
    prompt: ${JSON.stringify(loop.prompt ?? "Work on #{{ item.number }}: {{ item.title }}")}
    agent: ${loop.agent}
    approval: none
    max_cycles: 1000
    max_no_progress: 0
    retry_backoff: [1s]
    max_attempt_minutes: ${loop.maxAttemptMinutes ?? 1}${loop.verify === undefined ? "" : `\n    verify: ${JSON.stringify(loop.verify)}`}${
  loop.stallMinutes === undefined ? "" : `\n    stall_minutes: ${loop.stallMinutes}`
}${loop.workers === undefined ? "" : `\n    workers: ${JSON.stringify(loop.workers)}`}`

/**
 * A usine.yaml for the resilience suite: the emulator, a one-second poll, auto-approved Loops on labels, the Board
 * with the tests' token, and Workers. A Loop's Attempt may run one minute unless it says otherwise; the largest
 * of those is the drain's bound.
 */
export const resilienceConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly agents: Readonly<Record<string, string>>
  /** Local Workers, or ssh ones with `host`. */
  readonly workers: Readonly<Record<string, { readonly root: string; readonly slots: number; readonly host?: string }>>
  readonly loops: ReadonlyArray<LoopSpec>
  readonly labels?: ReadonlyArray<string>
  /** `state/ledger.db` by default; a PostgreSQL URL (as YAML) for the HA suite. */
  readonly ledger?: string
  /** Top-level YAML appended as is (`ha:`). */
  readonly extra?: string
}) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: ${options.ledger ?? "state/ledger.db"}
labels:${(options.labels ?? options.loops.map((l) => l.label)).map((name) => `\n  - {name: ${JSON.stringify(name)}, color: "0e8a16"}`).join("")}
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
agents:${Object.entries(options.agents).map(([name, spec]) => `\n  ${name}: ${spec}`).join("")}
workers:${Object.entries(options.workers).map(
  ([name, worker]) =>
    `\n  ${name}:\n    type: ${worker.host === undefined ? "local" : `ssh\n    host: ${worker.host}`}\n    root: ${JSON.stringify(worker.root)}\n    max_concurrent_attempts: ${worker.slots}`
).join("")}
loops:${options.loops.map(loopYaml).join("")}
${options.extra ?? ""}
`
