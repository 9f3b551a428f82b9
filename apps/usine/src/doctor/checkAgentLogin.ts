import { Effect } from "effect"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { WorkerConfig } from "@usine/core/config/WorkerConfig"
import type { WorkerTransportShape } from "@usine/executor/WorkerTransport"
import { fail, pass, type DoctorLine } from "./DoctorLine"

/** The keys each CLI reads, and its login file under the Worker's home (none for Codex: usine gives it its own CODEX_HOME). */
const CREDENTIALS: Partial<Record<AgentConfig["harness"], { readonly keys: ReadonlyArray<string>; readonly login?: string; readonly command?: string }>> = {
  codex: { keys: ["OPENAI_API_KEY", "CODEX_API_KEY"] },
  claude: { keys: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"], login: ".claude/.credentials.json", command: "claude login" },
  pi: { keys: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"], login: ".pi/agent/auth.json", command: "pi, then /login" }
}

/** The first of `keys` the Agent is handed with a value: a fixed `env` value, or one it inherits that is set. */
const grantedKey = (agent: AgentConfig, keys: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>) =>
  keys.find((key) => (agent.env.values[key] ?? "") !== "" || (agent.env.inherit.includes(key) && (env[key] ?? "") !== ""))

/**
 * Whether a Codex, Claude Code or Pi Agent without a `provider` can authenticate where it runs: a key its `env`
 * hands it (the value is never printed), or its CLI's own login file on the Worker, visible in the sandbox when the
 * Worker has one (`sandbox_read_only`). A `provider` Agent's key is `checkAgentKey`'s.
 */
export const checkAgentLogin = (options: {
  readonly label: string
  readonly transport: WorkerTransportShape
  readonly worker: WorkerConfig
  readonly name: string
  readonly agent: AgentConfig
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.Effect<ReadonlyArray<DoctorLine>> => {
  const { agent, name } = options
  const credentials = CREDENTIALS[agent.harness]
  if (credentials === undefined || agent.provider !== undefined) return Effect.succeed([])
  const where = `${options.label}: agent ${name}`
  const key = grantedKey(agent, credentials.keys, options.env)
  if (key !== undefined) return Effect.succeed([pass(`${where}: ${key} is handed to it (agents.${name}.env)`)])
  const grant = `grant ${credentials.keys[0]} in agents.${name}.env`
  if (credentials.login === undefined) {
    return Effect.succeed([fail(`${where}: no key: ${grant} (usine gives Codex a CODEX_HOME of its own, so a \`codex login\` is not read)`)])
  }
  const login = credentials.login
  return options.transport.exec({ argv: ["sh", "-c", 'test -s "$HOME/$1"', "usine-doctor", login], timeoutMs: 30_000 }).pipe(
    Effect.map((found): ReadonlyArray<DoctorLine> => {
      if (found.exitCode !== 0) return [fail(`${where}: not logged in and no key: run \`${credentials.command}\` there, or ${grant}`)]
      const shown = (agent.sandboxReadOnly ?? []).some((path) => path.replace(/^~\//, "") === login)
      return options.worker.sandbox === "none" || shown
        ? [pass(`${where}: logged in (~/${login})`)]
        : [fail(`${where}: logged in, but its sandbox hides ~/${login}: add it to agents.${name}.sandbox_read_only`)]
    }),
    Effect.catchAll((error) => Effect.succeed([fail(`${where}: cannot look for ~/${login}: ${error.message}`)]))
  )
}
