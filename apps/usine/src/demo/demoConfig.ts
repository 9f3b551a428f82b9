import { DEMO_AGENT, DEMO_REPOSITORY } from "./seedDemo"

/**
 * The demo's usine.yaml: the emulator as GitHub, the scripted agent, one local Worker, a Loop that waits for approval
 * and one that does not. Written to disk and started like any configuration.
 */
export const demoConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly workspaces: string
}): string => `# usine demo: written by \`usine demo\`; every Run works on the emulator's ${DEMO_REPOSITORY}.
github:
  token: ${JSON.stringify(options.token)}
  api_url: ${JSON.stringify(options.apiUrl)}

repositories: [${DEMO_REPOSITORY}]
poll_interval: 2s
ledger: ledger.db

labels:
  - {name: ready-for-agent, color: "0e8a16", description: An agent may start on this issue}
  - {name: bug, color: "d73a4a"}
  - {name: enhancement, color: "a2eeef"}
  - {name: question, color: "d876e3"}

board:
  listen: 127.0.0.1:${options.boardPort}
  columns:
    - {name: Ideas, label: question}
    - {name: Ready, label: ready-for-agent}

agents:
  demo-agent:
    harness: command
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(DEMO_AGENT)}]

workers:
  local:
    type: local
    max_concurrent_attempts: 2
    root: ${JSON.stringify(options.workspaces)}

loops:
  # A human approves each Run on the Board before the agent starts.
  - name: fix-bugs
    on: issues
    if: '"ready-for-agent" in item.labels && "bug" in item.labels && item.state == "open"'
    prompt: |
      Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}

      {{ item.body }}
    agent: demo-agent
    approval: required
    verify: ["node --test"]

  # Runs start as soon as polling sees the issue.
  - name: small-features
    on: issues
    if: '"ready-for-agent" in item.labels && "enhancement" in item.labels && item.state == "open"'
    prompt: |
      Implement issue #{{ item.number }} of {{ repository }}: {{ item.title }}

      {{ item.body }}
    agent: demo-agent
    approval: none
    verify: ["node --test"]
`
