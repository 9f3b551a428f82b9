import type { DemoAgents } from "./demoAgents"
import { issueLoopYaml } from "../init/issueLoopYaml"
import { DEMO_AGENT, DEMO_REPOSITORY } from "./seedDemo"

/** The demo repository's tests (`node --test`) check each Run's work. */
const VERIFY = 'verify: ["node --test"]'

const list = (words: ReadonlyArray<string>) => `[${words.map((w) => JSON.stringify(w)).join(", ")}]`

/** The `agents:` section and which Agent each Loop runs. */
const agentsOf = (agents: DemoAgents) =>
  agents._tag === "Script"
    ? {
        bugs: "demo-agent",
        features: "demo-agent",
        section: `agents:
  # A script standing in for a coding agent (demo/agent.mjs): it knows the demo's two issues.
  demo-agent:
    harness: command
    command: ${list([process.execPath, DEMO_AGENT])}`
      }
    : {
        bugs: "pi-bugs",
        features: "pi-features",
        section: `agents:
  # The real Pi CLI; its model is a scripted server on 127.0.0.1 that knows this Loop's issue (no key, no network).
  pi-bugs:
    harness: pi
    command: ${list(agents.command)}
    provider: {base_url: ${JSON.stringify(agents.bugs)}, model: sim-model}
  pi-features:
    harness: pi
    command: ${list(agents.command)}
    provider: {base_url: ${JSON.stringify(agents.features)}, model: sim-model}`
      }

/**
 * The demo's usine.yaml: the emulator as GitHub, the demo's Agents, one local Worker, a Loop that waits for approval
 * and one that does not. Written to disk and started like any configuration.
 */
export const demoConfig = (options: {
  readonly apiUrl: string
  readonly token: string
  readonly boardPort: number
  readonly workspaces: string
  readonly agents: DemoAgents
}): string => {
  const agents = agentsOf(options.agents)
  return `# usine demo: written by \`usine demo\`; every Run works on the emulator's ${DEMO_REPOSITORY}.
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

${agents.section}

workers:
  local:
    type: local
    max_concurrent_attempts: 2
    root: ${JSON.stringify(options.workspaces)}

loops:
  # A human approves each Run on the Board before the agent starts.
${issueLoopYaml({ name: "fix-bugs", labels: ["bug"], verb: "Fix", keys: [`agent: ${agents.bugs}`, "approval: required", VERIFY] })}

  # Runs start as soon as polling sees the issue.
${issueLoopYaml({ name: "small-features", labels: ["enhancement"], verb: "Implement", keys: [`agent: ${agents.features}`, "approval: none", VERIFY] })}
`
}
