import { Clock, Effect } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import type { WorkerConfig } from "@usine/core/config/WorkerConfig"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { probeSandbox } from "@usine/executor/Sandbox"
import { describeLimits, describeUser, probeLimits } from "@usine/executor/Sandbox/probeLimits"
import * as SshTransport from "@usine/executor/SshTransport"
import type { WorkerTransportShape } from "@usine/executor/WorkerTransport"
import { pathFrom } from "../daemon/StartupPlan"
import { checkAgentClis } from "./checkAgentClis"
import { checkAgentLogin } from "./checkAgentLogin"
import { fail, pass, warn, type DoctorLine } from "./DoctorLine"

/** Below this much free space under its root, a Worker's mirrors and worktrees may not fit. */
const MIN_FREE_BYTES = 1024 ** 3

/** The oldest git usine's worktree and safety settings are tested with. */
const MIN_GIT = [2, 30] as const

/** A command over an ssh Worker's open connection taking longer than this, in milliseconds, slows every Attempt. */
const SLOW_SSH_MS = 250

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`

/** `df -P` of the root, or of its nearest existing parent folder when it does not exist yet. */
const diskScript = `d=$1; case $d in '~/'*) d=$HOME/\${d#'~/'} ;; '~') d=$HOME ;; esac
while [ ! -e "$d" ]; do d=$(dirname "$d"); done
df -Pk "$d" | tail -1`

const diskLine = (label: string, transport: WorkerTransportShape, root: string) =>
  Effect.map(transport.exec({ argv: ["sh", "-c", diskScript, "usine-doctor", root], timeoutMs: 30_000 }), (result): DoctorLine => {
    const available = Number(result.stdout.trim().split(/\s+/)[3])
    if (result.exitCode !== 0 || Number.isNaN(available)) return fail(`${label}: cannot read the free space under ${root} (df -P failed: ${result.stderr.trim()})`)
    const bytes = available * 1024
    return bytes < MIN_FREE_BYTES
      ? fail(`${label}: only ${gib(bytes)} free under ${root}: free some space or move root`)
      : pass(`${label}: ${gib(bytes)} free under ${root}`)
  })

const gitLine = (label: string, transport: WorkerTransportShape) =>
  Effect.map(transport.exec({ argv: ["git", "--version"], timeoutMs: 30_000 }), (result): DoctorLine => {
    const match = /(\d+)\.(\d+)(?:\.\d+)?/.exec(result.stdout)
    if (result.exitCode !== 0 || match === null) return fail(`${label}: git is not installed or not on PATH: install git ${MIN_GIT.join(".")} or later`)
    const [major, minor] = [Number(match[1]), Number(match[2])]
    const recent = major > MIN_GIT[0] || (major === MIN_GIT[0] && minor >= MIN_GIT[1])
    return recent
      ? pass(`${label}: git ${match[0]}`)
      : fail(`${label}: git ${match[0]} is older than ${MIN_GIT.join(".")}: upgrade git there`)
  })

/**
 * How long one command takes over the Worker's open ssh connection (the median of three): an Attempt runs dozens, and
 * sshd starts each through the login shell, which for bash reads ~/.bashrc (a `pyenv init` there costs ~600 ms).
 */
const sshRoundTripLine = (label: string, host: string, transport: WorkerTransportShape) =>
  Effect.gen(function* () {
    const times: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const start = yield* Clock.currentTimeMillis
      yield* transport.exec({ argv: ["true"], timeoutMs: 30_000 })
      times.push((yield* Clock.currentTimeMillis) - start)
    }
    const median = times.sort((a, b) => a - b)[1] ?? 0
    return median > SLOW_SSH_MS
      ? warn(
        `${label}: one command over ssh takes ${median} ms, and an Attempt runs dozens: the login shell on ${host} is slow to start (bash reads ~/.bashrc for every command sshd runs; return early there when $PS1 is empty, before pyenv, nvm or conda set themselves up)`
      )
      : pass(`${label}: one command over ssh takes ${median} ms`)
  })

const sandboxLines = (label: string, worker: WorkerConfig, transport: WorkerTransportShape) =>
  worker.sandbox === "none"
    ? Effect.succeed([warn(`${label}: sandbox: none, agents and verify commands run unconfined there, without limits`)])
    : Effect.gen(function* () {
        const unavailable = yield* probeSandbox(transport)
        if (unavailable !== undefined) {
          return [fail(`${label}: no working sandbox (${unavailable}): install bubblewrap and socat there, or set \`sandbox: none\` on the Worker`)]
        }
        const settings = { sandboxUid: worker.sandboxUid, limits: worker.limits }
        const host = yield* probeLimits(transport)
        return [
          pass(`${label}: the bubblewrap sandbox works; agents run as ${describeUser(settings, host)}`),
          pass(`${label}: limits: ${describeLimits(settings, host)}`)
        ]
      })

/**
 * One Worker: reachable (a local one always is; an ssh one through the daemon's own transport, so its failure reads
 * as `usine up`'s would), then its sandbox, free disk space under its root, git, its Agents' CLIs and their logins.
 */
export const checkWorker = (options: {
  readonly configFile: string
  readonly config: UsineConfig
  readonly name: string
  readonly worker: WorkerConfig
  /** usine's environment, where the keys an Agent inherits come from. */
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.Effect<ReadonlyArray<DoctorLine>> => {
  const { config, name, worker } = options
  const label = `worker ${name}`
  return Effect.scoped(
    Effect.gen(function* () {
      const transport = worker.type === "ssh"
        ? yield* SshTransport.make({ destination: worker.host ?? name, controlPersistSeconds: 1 })
        : LocalTransport.make()
      const root = worker.type === "ssh" ? worker.root : pathFrom(options.configFile, worker.root)
      const reached = yield* transport.exec({ argv: ["true"], timeoutMs: 30_000 })
      const lines: Array<DoctorLine> = [
        reached.exitCode === 0
          ? pass(`${label}: reachable (${worker.type === "ssh" ? `ssh ${worker.host ?? name}` : "this machine"})`)
          : fail(`${label}: \`true\` exited ${reached.exitCode} on ${transport.host}`)
      ]
      if (worker.type === "ssh") lines.push(yield* sshRoundTripLine(label, worker.host ?? name, transport))
      lines.push(...(yield* sandboxLines(label, worker, transport)))
      lines.push(yield* diskLine(label, transport, root))
      lines.push(yield* gitLine(label, transport))
      const agents = worker.agents ?? Object.keys(config.agents)
      lines.push(...(yield* checkAgentClis({ label, transport, agents: agents.map((agent) => [agent, config.agents[agent]] as const) })))
      for (const agent of agents) {
        const agentConfig = config.agents[agent]
        if (agentConfig !== undefined) lines.push(...(yield* checkAgentLogin({ label, transport, worker, name: agent, agent: agentConfig, env: options.env })))
      }
      return lines
    })
  ).pipe(
    Effect.catchAll((error) =>
      Effect.succeed([
        fail(
          error._tag === "WorkerUnreachable"
            ? `${label}: unreachable over ssh (${error.detail.split("\n")[0]}): check workers.${name}.host, the network, and that ssh ${worker.host ?? name} works without a prompt`
            : `${label}: ${error.message}`
        )
      ])
    )
  )
}
