import { Effect, Layer } from "effect"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import * as LocalExecutor from "@usine/executor/LocalExecutor"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { PullRequests } from "@usine/executor/PullRequests"
import { Redactor } from "@usine/executor/Redactor"
import * as SshTransport from "@usine/executor/SshTransport"
import type { WorkerTransportShape } from "@usine/executor/WorkerTransport"
import { acquireWorkerRootLock, holderNote } from "@usine/executor/WorkerRootLock"
import { ConfigState } from "../ConfigState"
import { pathFrom, type StartupPlan } from "../daemon/StartupPlan"

/** Where git clones `owner/name` from, next to the API: github.com, a GitHub Enterprise host, or the emulator. */
export const cloneUrlOf = (apiUrl: string) => (repository: string): string => {
  const api = new URL(apiUrl)
  const web = api.hostname === "api.github.com"
    ? "https://github.com"
    : `${api.protocol}//${api.host}${api.pathname.replace(/\/api\/v3\/?$/, "").replace(/\/+$/, "")}`
  return `${web}/${repository}.git`
}

/**
 * The Agents of the configuration in force, looked up at each Attempt, so an Agent added or changed by a reload is
 * used from the next Attempt on. The executor reads the record by name only.
 */
const liveAgents = (current: () => UsineConfig): Readonly<Record<string, AgentConfig>> =>
  new Proxy({} as Record<string, AgentConfig>, {
    get: (_, name) => (typeof name === "string" ? current().agents[name] : undefined),
    has: (_, name) => typeof name === "string" && name in current().agents,
    ownKeys: () => Object.keys(current().agents),
    getOwnPropertyDescriptor: (_, name) =>
      typeof name === "string" && name in current().agents
        ? { enumerable: true, configurable: true, value: current().agents[name] }
        : undefined
  })

/**
 * Takes the Worker root for the daemon's life (ADR 0048), before the engine's recovery walks it: a second daemon on
 * the same root refuses to start. An unreachable ssh Worker does not stop the start (its Attempts fail until it is
 * back, and recovery skips it); it is left unlocked, with a warning.
 */
const lockRoot = (plan: StartupPlan, name: string, worker: { readonly transport: WorkerTransportShape; readonly root: string }) =>
  acquireWorkerRootLock({ worker: name, transport: worker.transport, root: worker.root, note: holderNote(plan.configFile) }).pipe(
    Effect.catchTag("WorkerUnreachable", (error) =>
      Effect.logWarning("a Worker could not be reached to lock its root; it runs unlocked").pipe(
        Effect.annotateLogs({ worker: name, error: error.message })
      )
    )
  )

/**
 * The real executor: each configured Worker on its transport (this machine, or an ssh host), pull requests through
 * the daemon's GitHub client, the daemon's redactor (built from `StartupPlan.secrets`, so it knows the Agents' keys).
 * Each Worker's root is locked at start; it is opened when first used; `~/` on an ssh Worker is that host's home.
 */
export const ExecutorLayer = (plan: StartupPlan) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const state = yield* ConfigState
      const redactor = yield* Redactor
      const workers = Object.fromEntries(
        yield* Effect.forEach(Object.entries(plan.config.workers), ([name, worker]) =>
          worker.type === "ssh"
            ? Effect.map(SshTransport.make({ destination: worker.host ?? name }), (transport) =>
                [name, { transport, root: worker.root.replace(/^~\//, "") }] as const
              )
            : Effect.succeed([name, { transport: LocalTransport.make(), root: pathFrom(plan.configFile, worker.root) }] as const)
        )
      )
      yield* Effect.forEach(Object.entries(workers), ([name, worker]) => lockRoot(plan, name, worker), { discard: true })
      return LocalExecutor.layer({
        agents: liveAgents(state.unsafeGet),
        workers,
        token: plan.token,
        cloneUrl: cloneUrlOf(plan.config.github.apiUrl),
        redactor
      })
    })
  ).pipe(Layer.provide(PullRequests.github))
