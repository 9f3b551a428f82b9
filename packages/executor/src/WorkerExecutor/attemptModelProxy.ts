import { Effect, Option, Queue } from "effect"
import * as path from "node:path/posix"
import { modelProviderOf, PROVIDER_HARNESSES } from "@usine/core/config/AgentConfig"
import { zeroUsage } from "@usine/core/usage/usageFigures"
import { startModelProxy } from "../ModelProxy"
import type { AttemptContext } from "./AttemptContext"

/** Where the Attempt's folder keeps its proxy's port: a reattach listens there again, where the running CLI points. */
const PORT_FILE = "model-proxy.port"

/**
 * The Attempt's model proxy (ADR 0086), for an Agent with a `provider` on a Worker on the daemon's host: started
 * before the agent (the engine learns at once that the caps judge the proxy's figures), its metered usage handed to
 * the engine as each answer ends, closed with the scope. `undefined` when the Attempt has none: a CLI on its own
 * login, an ssh Worker, or an engine that does not meter.
 */
export const attemptModelProxy = (ctx: Pick<AttemptContext, "settings" | "worker" | "request" | "agent" | "attemptDir">) =>
  Effect.gen(function* () {
    const provider = modelProviderOf(ctx.agent, ctx.settings.daemonEnv)
    const onMetered = ctx.request.onMeteredUsage
    if (provider === undefined || onMetered === undefined || ctx.worker.local === false || !PROVIDER_HARNESSES.includes(ctx.agent.harness)) {
      return undefined
    }
    const portFile = path.join(ctx.attemptDir, PORT_FILE)
    const recorded = Option.flatMap(yield* ctx.worker.transport.readFile(portFile, { maxBytes: 16 }), (bytes) => {
      const port = Number(Buffer.from(bytes).toString("utf8").trim())
      return Number.isInteger(port) && port > 0 && port < 65536 ? Option.some(port) : Option.none()
    })
    const proxy = yield* startModelProxy({
      providerBaseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      ...(Option.isSome(recorded) ? { port: recorded.value } : {})
    })
    if (Option.isNone(recorded)) yield* ctx.worker.transport.writeFile(portFile, `${proxy.port}\n`)
    yield* onMetered(zeroUsage)
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(proxy.metered), (m) => onMetered(m.usage))))
    return {
      baseUrl: proxy.baseUrl,
      /** Hands over what was metered and not yet handed over: the last answer ends just before the CLI does. */
      flush: Effect.flatMap(Queue.takeAll(proxy.metered), (all) => Effect.forEach(all, (m) => onMetered(m.usage), { discard: true }))
    }
  })
