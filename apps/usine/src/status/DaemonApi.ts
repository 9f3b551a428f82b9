import { Data, Effect, Option, Redacted } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"

/** No daemon answered at the Board's address, or it refused the request. */
class DaemonUnavailable extends Data.TaggedError("DaemonUnavailable")<{
  readonly url: string
  readonly detail: string
}> {
  override get message() {
    return `no usine daemon answers at ${this.url}: ${this.detail}`
  }
}

/** The address `usine status` asks: the Board's listen address, loopback when it listens on every interface. */
export const boardUrlOf = (config: UsineConfig): string => {
  const { host, port } = config.board.listen
  const local = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host
  return `http://${local.includes(":") ? `[${local}]` : local}:${port}`
}

/** GETs one JSON page of the running daemon's Board API, with the Board token when one is configured. */
export const daemonApi = (config: UsineConfig) => {
  const base = boardUrlOf(config)
  const headers: Record<string, string> = { accept: "application/json" }
  Option.map(config.board.token, (token) => (headers["authorization"] = `Bearer ${Redacted.value(token)}`))
  return <A>(path: string): Effect.Effect<A, DaemonUnavailable> =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]) })
        if (!response.ok) throw new Error(`${path} answered ${response.status}`)
        return (await response.json()) as A
      },
      catch: (error) =>
        new DaemonUnavailable({
          url: base,
          detail: error instanceof TypeError ? "nothing listens there (is `usine up` running?)" : String(error instanceof Error ? error.message : error)
        })
    })
}
