import { type ClientRequest, request } from "node:http"
import { Effect } from "effect"

export interface ServerEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
}

/** A Server-Sent Events reader on 127.0.0.1 that collects events as they arrive; the scope closes the connection. */
export const openEventStream = (port: number, path: string, headers: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly status: number; readonly events: Array<ServerEvent>; readonly req: ClientRequest }>((resume) => {
      const events: Array<ServerEvent> = []
      const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
        let buffer = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          buffer += chunk
          let end = buffer.indexOf("\n\n")
          while (end >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const field = (name: string) =>
              block.split("\n").filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).trimStart())
            events.push({ event: field("event")[0] ?? "message", data: field("data").join("\n"), id: field("id")[0] })
            end = buffer.indexOf("\n\n")
          }
        })
        res.on("error", () => {})
        resume(Effect.succeed({ status: res.statusCode ?? 0, events, req }))
      })
      req.on("error", () => {})
      req.end()
    }),
    ({ req }) => Effect.sync(() => req.destroy())
  )
