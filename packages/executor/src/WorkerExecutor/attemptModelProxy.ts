import { Effect, Option, Queue } from "effect"
import * as path from "node:path/posix"
import { type AgentConfig, modelProviderOf, PROVIDER_HARNESSES } from "@usine/core/config/AgentConfig"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { zeroUsage } from "@usine/core/usage/usageFigures"
import { InfraFailure } from "@usine/core/attempt/failure"
import { startModelProxy } from "../ModelProxy"
import { proxyTunnel } from "./proxyTunnel"
import type { AttemptContext, ExecutorSettings } from "./AttemptContext"
import type { ExecutorWorker } from "./ExecutorWorker"

/**
 * Where a session's folder keeps the port its CLI points at on the Worker's host: the proxy's own on the daemon's
 * host, the tunnel's on another (ADR 0097). A reattach listens there again, or asks the host for that port again.
 */
const PORT_FILE = "model-proxy.port"

/**
 * A model proxy for an Agent with a `provider` (ADR 0086), its port kept in `dir`, each answer's usage handed to
 * `onMetered` (dropped without one), closed with the scope. On a Worker on another host the proxy listens on the
 * daemon's loopback and a tunnel over ssh (ADR 0097) carries the host's port to it: the key never goes there.
 * `lost` fails when that tunnel closed and could not be reopened; it never completes otherwise. `undefined` when the
 * Agent has no provider.
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
    if (provider === undefined || !PROVIDER_HARNESSES.includes(agent.harness)) return undefined
    const portFile = path.join(options.dir, PORT_FILE)
    const recorded = Option.flatMap(yield* worker.transport.readFile(portFile, { maxBytes: 16 }), (bytes) => {
      const port = Number(Buffer.from(bytes).toString("utf8").trim())
      return Number.isInteger(port) && port > 0 && port < 65536 ? Option.some(port) : Option.none()
    })
    const forward = worker.transport.reverseForward
    const proxy = yield* startModelProxy({
      providerBaseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      // Behind a tunnel, the recorded port is the host's: the proxy itself may listen anywhere here.
      ...(Option.isSome(recorded) && forward === undefined ? { port: recorded.value } : {})
    })
    const tunnel = forward === undefined ? undefined : yield* proxyTunnel({
      host: worker.transport.host,
      forward,
      port: proxy.port,
      remotePort: Option.getOrUndefined(recorded)
    }).pipe(
      Effect.catchTag("ReverseForwardFailed", (error) =>
        Effect.fail(new InfraFailure({ reason: `the tunnel to usine's model proxy could not be opened: ${error.message}`, evidence: "" })))
    )
    const port = tunnel?.remotePort ?? proxy.port
    if (Option.isNone(recorded)) yield* worker.transport.writeFile(portFile, `${port}\n`)
    const meter = options.onMetered ?? (() => Effect.void)
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(proxy.metered), (m) => meter(m.usage))))
    return {
      baseUrl: `http://127.0.0.1:${port}${proxy.basePath}`,
      lost: tunnel?.lost ?? Effect.never,
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
