import { Effect, Option, Queue } from "effect"
import * as path from "node:path/posix"
import { type AgentConfig, modelProviderOf, PROVIDER_HARNESSES } from "@usine/core/config/AgentConfig"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { zeroUsage } from "@usine/core/usage/usageFigures"
import { startModelProxy } from "../ModelProxy"
import type { AttemptContext, ExecutorSettings } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"

/** Where a session's folder keeps its proxy's port: a reattach listens there again, where the running CLI points. */
const PORT_FILE = "model-proxy.port"

/**
 * A model proxy for an Agent with a `provider` on a Worker on the daemon's host (ADR 0086), its port kept in `dir`,
 * each answer's usage handed to `onMetered` (dropped without one), closed with the scope. `undefined` when the Agent
 * has no provider or the Worker is on another host.
 */
export const sessionModelProxy = (options: {
  readonly settings: ExecutorSettings
  readonly worker: ExecutorWorker
  readonly agent: AgentConfig
  readonly dir: string
  readonly onMetered: ((usage: Usage) => Effect.Effect<void>) | undefined
}) =>
  Effect.gen(function* () {
    const { agent, worker } = options
    const provider = modelProviderOf(agent, options.settings.daemonEnv)
    if (provider === undefined || worker.local === false || !PROVIDER_HARNESSES.includes(agent.harness)) return undefined
    const portFile = path.join(options.dir, PORT_FILE)
    const recorded = Option.flatMap(yield* worker.transport.readFile(portFile, { maxBytes: 16 }), (bytes) => {
      const port = Number(Buffer.from(bytes).toString("utf8").trim())
      return Number.isInteger(port) && port > 0 && port < 65536 ? Option.some(port) : Option.none()
    })
    const proxy = yield* startModelProxy({
      providerBaseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      ...(Option.isSome(recorded) ? { port: recorded.value } : {})
    })
    if (Option.isNone(recorded)) yield* worker.transport.writeFile(portFile, `${proxy.port}\n`)
    const meter = options.onMetered ?? (() => Effect.void)
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(proxy.metered), (m) => meter(m.usage))))
    return {
      baseUrl: proxy.baseUrl,
      /** Hands over what was metered and not yet handed over: the last answer ends just before the CLI does. */
      flush: Effect.flatMap(Queue.takeAll(proxy.metered), (all) => Effect.forEach(all, (m) => meter(m.usage), { discard: true }))
    }
  })

/**
 * The Attempt's model proxy: started before the agent, it tells the engine at once (zero usage) that the caps judge
 * its figures. None when the engine does not meter (`onMeteredUsage` absent).
 */
export const attemptModelProxy = (ctx: Pick<AttemptContext, "settings" | "worker" | "request" | "agent" | "attemptDir">) =>
  Effect.gen(function* () {
    const onMetered = ctx.request.onMeteredUsage
    if (onMetered === undefined) return undefined
    const proxy = yield* sessionModelProxy({ settings: ctx.settings, worker: ctx.worker, agent: ctx.agent, dir: ctx.attemptDir, onMetered })
    if (proxy !== undefined) yield* onMetered(zeroUsage)
    return proxy
  })
