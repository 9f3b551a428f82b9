import { readFileSync } from "node:fs"
import { join } from "node:path"
import { AGENT, BOARD_TOKEN, REPOSITORY } from "../../support/daemonConfig"
import type { WorldConfig } from "./BoardWorld"
import { CLAUDE_TASK_PROLOGUE } from "./claudeTaskPrologue"

/** The file the Claude-shaped agent is written to, beside usine.yaml. */
export const CLAUDE_AGENT_FILE = "claude-demo.mjs"

/** What each demo task reports as spent, like `claude -p --output-format stream-json`'s closing `result` event. */
export const TASK_USAGE = {
  punctuation: { input_tokens: 9600, cache_read_input_tokens: 7800, cache_creation_input_tokens: 0, output_tokens: 380, total_cost_usd: 0.042 },
  deslugify: { input_tokens: 7400, cache_read_input_tokens: 5000, cache_creation_input_tokens: 0, output_tokens: 230, total_cost_usd: 0.031 }
} as const

/**
 * A Claude-shaped agent around the demo's scripted agent: it takes the task as Claude Code's first stream-json line
 * (stdin stays open, ADR 0062), runs the demo agent's source on it (the real change, tests and commit; the sandbox
 * shows an agent its own file, not the checkout's), relays each of its
 * lines as the assistant's text, and closes with a `result` carrying the task's usage, so Usage has figures.
 */
export const claudeAgentScript = () => `import { spawnSync } from "node:child_process"
const usage = ${JSON.stringify(TASK_USAGE)}
const demoAgent = ${JSON.stringify(readFileSync(AGENT, "utf8").replace(/^#!.*\n/, ""))}
${CLAUDE_TASK_PROLOGUE}
emit({ type: "system", subtype: "init", session_id: "demo-" + Date.now(), model: "claude-demo" })
const env = { ...process.env }
delete env.USINE_PROMPT_FILE
const run = spawnSync(process.execPath, ["--input-type=module", "-e", demoAgent], { input: prompt, encoding: "utf8", env })
for (const text of (run.stdout + run.stderr).split("\\n").filter((l) => l.trim() !== "")) {
  emit({ type: "assistant", message: { model: "claude-demo", content: [{ type: "text", text }] } })
}
const spent = /deslugify/i.test(prompt) ? usage.deslugify : usage.punctuation
const { total_cost_usd, ...tokens } = spent
emit({ type: "result", subtype: run.status === 0 ? "success" : "error_during_execution", is_error: run.status !== 0, num_turns: 3, usage: tokens, total_cost_usd })
process.exit(run.status ?? 1)
`

/** The labels of the showcase: two columns, the issue kinds the Loops select on, and the triage label. */
export const SHOWCASE_LABELS = { idea: "idea", ready: "ready-for-agent", bug: "bug", enhancement: "enhancement", triage: "needs-triage" } as const

/**
 * A Board with figures in every page: `fix-bugs` waits for approval, `build-features` does not (both the Claude-shaped
 * demo agent, so their Runs spend tokens), `triage` runs an Agent whose provider hangs up (a failed Run), daily caps.
 */
export const showcaseConfig: WorldConfig = (options) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: state/ledger.db
labels:
  - {name: ${SHOWCASE_LABELS.idea}, color: "d876e3"}
  - {name: ${SHOWCASE_LABELS.ready}, color: "0e8a16"}
  - {name: ${SHOWCASE_LABELS.bug}, color: "d73a4a"}
  - {name: ${SHOWCASE_LABELS.enhancement}, color: "a2eeef"}
  - {name: ${SHOWCASE_LABELS.triage}, color: "fbca04"}
budget:
  daily_tokens: 200000
  daily_cost_usd: 5
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
  columns:
    - {name: Ideas, label: ${SHOWCASE_LABELS.idea}}
    - {name: Ready, label: ${SHOWCASE_LABELS.ready}}
    - {name: Triage, label: ${SHOWCASE_LABELS.triage}}
agents:
  claude-demo:
    harness: claude
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(options.dir, CLAUDE_AGENT_FILE))}]
  hung-up:
    harness: command
    command: [sh, -c, "echo 'reading the failing job log'; echo 'the model provider hung up' >&2; exit 1"]
workers:
  local:
    root: ${JSON.stringify(join(options.dir, "workspaces"))}
    max_concurrent_attempts: 2
loops:
  - name: fix-bugs
    on: issues
    if: '"${SHOWCASE_LABELS.ready}" in item.labels && "${SHOWCASE_LABELS.bug}" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: claude-demo
    approval: required
  - name: build-features
    on: issues
    if: '"${SHOWCASE_LABELS.ready}" in item.labels && "${SHOWCASE_LABELS.enhancement}" in item.labels'
    prompt: "Implement issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: claude-demo
    approval: none
    budget: {daily_tokens: 50000}
  - name: triage
    on: issues
    if: '"${SHOWCASE_LABELS.triage}" in item.labels'
    prompt: "Triage issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: hung-up
    approval: none
`
