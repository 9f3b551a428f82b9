import { issueLoopYaml } from "./issueLoopYaml"

/** `owner/name` and the host of a git remote URL (`git@host:o/n.git`, `https://host/o/n`, `ssh://git@host/o/n.git`). */
export const repositoryOfRemote = (url: string): { readonly host: string; readonly repository: string } | undefined => {
  const match = /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?([^/:]+)(?::\d+)?[:/](?:.*\/)?([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(
    url.trim()
  )
  return match === null ? undefined : { host: match[1] ?? "", repository: `${match[2]}/${match[3]}` }
}

/** A commented usine.yaml for one repository: one gated Loop, a Codex Agent, one local Worker, the Board on loopback. */
export const initConfig = (options: { readonly repository: string; readonly host: string }): string => {
  const apiUrl = options.host === "github.com" ? "https://api.github.com" : `https://${options.host}/api/v3`
  return `# usine.yaml for ${options.repository}, written by \`usine init\`.
# Check it with \`usine check\`, then run \`usine up\`. Every key is described in the README's reference.
# \`\${NAME}\` reads an environment variable; \`\${NAME:-default}\` falls back when it is unset.

github:
  # A fine-grained token for ${options.repository} with Metadata read, Issues read/write, Contents write,
  # Pull requests write. First found wins: \`token\`, the file \`token_file\` (mode 600), GITHUB_TOKEN, \`gh auth token\`.
  token: \${GITHUB_TOKEN:-}
  # token_file: ~/.config/usine/github-token
  api_url: ${apiUrl}

repositories:
  - ${options.repository}

# How often GitHub is polled; an unchanged repository costs one free 304.
poll_interval: 60s

# Every Event, Run, Attempt and transcript; one daemon per file. Relative to this file's folder.
ledger: .usine/ledger.db

# Created in the repository when missing.
labels:
  - name: ready-for-agent
    color: "0e8a16"
    description: An agent may start on this issue

board:
  # Loopback only, unless \`token\` is set.
  listen: 127.0.0.1:8787
  token: \${USINE_BOARD_TOKEN:-}
  columns:
    - name: Ready
      label: ready-for-agent

agents:
  codex:
    harness: codex
    # Only the variables listed here reach the agent.
    env: [OPENAI_API_KEY]
  # claude:
  #   harness: claude
  #   env: [ANTHROPIC_API_KEY]

workers:
  local:
    type: local
    max_concurrent_attempts: 1
    root: ~/.usine/workspaces
    # Agents and verify commands run in a bubblewrap sandbox (install bubblewrap and socat); \`none\` runs them as you.
    sandbox: bubblewrap

loops:
${issueLoopYaml({
  name: "start-dev",
  verb: "Implement",
  closing: "Keep the change focused and make the tests pass.",
  keys: [
    "agent: codex",
    "# A human approves each Run on the Board before the agent starts.",
    "approval: required",
    "max_attempt_minutes: 60",
    "# verify: [npm test]"
  ]
})}
`
}
