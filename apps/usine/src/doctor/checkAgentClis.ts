import { Effect } from "effect"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import { cliArgv } from "@usine/executor/harness/cliArgv"
import type { WorkerTransportShape } from "@usine/executor/WorkerTransport"
import { fail, pass, type DoctorLine } from "./DoctorLine"

/** What is printed of a CLI's `--version`: its first line, cut short. */
const firstLine = (text: string) => (text.trim().split("\n")[0] ?? "").slice(0, 80)

/**
 * An Agent's CLI on a Worker: for codex, claude and pi, `<cli> --version`; for a `command` Agent, only that its
 * program is found, since running an arbitrary command with `--version` could start the agent itself.
 */
const cliLine = (label: string, transport: WorkerTransportShape, name: string, agent: AgentConfig) =>
  Effect.gen(function* () {
    const argv = cliArgv(agent.command, agent.harness)
    const program = argv[0] ?? agent.harness
    const where = `${label}: agent ${name}`
    if (agent.harness === "command") {
      const found = yield* transport.exec({ argv: ["sh", "-c", 'command -v "$1"', "sh", program], timeoutMs: 30_000 })
      return found.exitCode === 0
        ? pass(`${where}: ${program} is installed`)
        : fail(`${where}: ${program} is not installed or not on PATH there`)
    }
    const version = yield* transport.exec({ argv: [...argv, "--version"], timeoutMs: 30_000 })
    return version.exitCode === 0
      ? pass(`${where}: ${program} ${firstLine(version.stdout || version.stderr)}`)
      : fail(`${where}: \`${program} --version\` failed (exit ${version.exitCode}): install the ${agent.harness} CLI there or set agents.${name}.command`)
  })

/** The key a provider names (`provider.api_key_env`) is set in usine's environment; its value is never printed. */
export const checkAgentKey = (name: string, agent: AgentConfig, env: Readonly<Record<string, string | undefined>>): Array<DoctorLine> => {
  const variable = agent.provider?.apiKeyEnv
  if (variable === undefined) return []
  const value = env[variable]
  return [
    value === undefined || value === ""
      ? fail(`agent ${name}: ${variable} is not set: export it before usine starts (provider.api_key_env)`)
      : pass(`agent ${name}: ${variable} is set`)
  ]
}

/** The CLI of each Agent a Worker runs, there. */
export const checkAgentClis = (options: {
  readonly label: string
  readonly transport: WorkerTransportShape
  readonly agents: ReadonlyArray<readonly [string, AgentConfig | undefined]>
}) =>
  Effect.forEach(options.agents, ([name, agent]) =>
    agent === undefined ? Effect.succeed([]) : Effect.map(cliLine(options.label, options.transport, name, agent), (line) => [line])
  ).pipe(Effect.map((lines) => lines.flat()))
