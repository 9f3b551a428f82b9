import { join } from "node:path"
import { AGENT, BOARD_TOKEN, REPOSITORY } from "../../support/daemonConfig"

/** The Board's columns and the labels they stand for; moving a card to Ready starts `fix-bugs`. */
export const COLUMNS = { ideas: { name: "Ideas", label: "idea" }, ready: { name: "Ready", label: "ready-for-agent" } } as const
/** The label of the Loop whose Agent fails its first Attempt. */
export const FLAKY_LABEL = "flaky"
/** The label of the Loop whose Runs stop at the pull-request gate (ADR 0063) before their pull request. */
export const REVIEWED_LABEL = "reviewed"
/** The first transcript line of the slow agent, printed seconds before the rest, so the page sees rows arrive. */
export const FIRST_LINE = "reading the issue before touching the code"

const node = JSON.stringify(process.execPath)
const agent = JSON.stringify(AGENT)

/**
 * `quick`: the demo's scripted agent. `slow`: the demo's scripted agent after a first line and a pause. `flaky`: exits 1 while its marker is absent
 * from the worktree (creating it), so the first Attempt fails; its salvage carries the marker to the retry (the
 * sandbox lets an agent write nothing outside its worktree), which removes it and runs the demo's agent.
 */
const agents = () => `agents:
  quick:
    harness: command
    command: [${node}, ${agent}]
  slow:
    harness: command
    command: [sh, -c, ${JSON.stringify(`echo '${FIRST_LINE}'; sleep 4; exec ${node} ${agent}`)}]
  flaky:
    harness: command
    command: [sh, -c, ${
  JSON.stringify(
    `if [ -e .flaky-failed-once ]; then rm -f .flaky-failed-once; exec ${node} ${agent}; fi; touch .flaky-failed-once; ` +
      "echo 'the model provider hung up on the first try'; exit 1"
  )
}]`

/** The browser suite's usine.yaml: the emulator as GitHub, a Board with a token and two columns, two Loops. */
export const browserConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly dir: string
}) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: state/ledger.db
labels:
  - {name: ${COLUMNS.ideas.label}, color: "d876e3"}
  - {name: ${COLUMNS.ready.label}, color: "0e8a16"}
  - {name: ${FLAKY_LABEL}, color: "fbca04"}
  - {name: ${REVIEWED_LABEL}, color: "1d76db"}
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
  columns:
    - {name: ${COLUMNS.ideas.name}, label: ${COLUMNS.ideas.label}}
    - {name: ${COLUMNS.ready.name}, label: ${COLUMNS.ready.label}}
${agents()}
workers:
  local:
    root: ${JSON.stringify(join(options.dir, "workspaces"))}
    max_concurrent_attempts: 2
loops:
  - name: fix-bugs
    on: issues
    if: '"${COLUMNS.ready.label}" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: slow
    approval: required
  - name: flaky-features
    on: issues
    if: '"${FLAKY_LABEL}" in item.labels'
    prompt: "Implement issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: flaky
    approval: none
  - name: reviewed-features
    on: issues
    if: '"${REVIEWED_LABEL}" in item.labels'
    prompt: "Implement issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: quick
    approval: {start: none, pull_request: required}
`
