/** What an Agent's config says about its process environment. */
interface AgentEnvironmentConfig {
  /** Names of the daemon's variables the agent may see, each granted explicitly (an API key, a proxy). */
  readonly grant: ReadonlyArray<string>
  /** Variables the config sets to literal values. */
  readonly set: Readonly<Record<string, string>>
}

/** The agent's process environment, and what the config asked for that could not be given. */
interface AgentEnvironment {
  readonly env: Readonly<Record<string, string>>
  /** Granted names the daemon's environment does not have: the agent will run without them. */
  readonly missing: ReadonlyArray<string>
  /** Names that cannot be environment variables (empty, `=`, NUL): ignored. */
  readonly rejected: ReadonlyArray<string>
}

/** What any CLI needs to run at all; none of these carries a credential. */
export const BASE_VARIABLES: ReadonlyArray<string> = ["PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR"]

/** Set for every agent: a git command asking for a password would otherwise block the Attempt until its stall timer. */
const FIXED: Readonly<Record<string, string>> = { GIT_TERMINAL_PROMPT: "0" }

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Builds an agent's environment from its config alone, never by subtracting from the daemon's: a minimal base,
 * the daemon variables the config grants by name, the config's literal values, then the harness's own (which win,
 * so `CODEX_HOME` always points into the Attempt's folder). Everything else of the daemon (`GITHUB_TOKEN`,
 * `SSH_AUTH_SOCK`, `USINE_*`, any key or token) stays out. The process must be spawned with exactly this
 * environment, not on top of the daemon's (`Command.env(env, { extendEnv: false })`).
 */
export const agentEnvironment = (options: {
  readonly daemonEnv: Readonly<Record<string, string | undefined>>
  readonly config: AgentEnvironmentConfig
  readonly harness: Readonly<Record<string, string>>
}): AgentEnvironment => {
  const { config, daemonEnv, harness } = options
  const env: Record<string, string> = {}
  const missing: Array<string> = []
  const rejected: Array<string> = []
  for (const name of BASE_VARIABLES) {
    const value = daemonEnv[name]
    if (value !== undefined) env[name] = value
  }
  Object.assign(env, FIXED)
  for (const name of config.grant) {
    if (!VALID_NAME.test(name)) {
      rejected.push(name)
      continue
    }
    const value = daemonEnv[name]
    if (value === undefined) missing.push(name)
    else env[name] = value
  }
  for (const [name, value] of Object.entries(config.set)) {
    if (VALID_NAME.test(name) && !value.includes("\0")) env[name] = value
    else rejected.push(name)
  }
  Object.assign(env, harness)
  return { env, missing, rejected }
}
