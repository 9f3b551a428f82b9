import { createServer, type Server } from "node:net"
import { Effect } from "effect"

const listening = (port: number) =>
  Effect.async<Server>((resume) => {
    const server = createServer()
    server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
  })

const close = (server: Server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))

/** A port nothing listens on now (the OS picked it free; it is closed again before use). */
export const freePort = Effect.gen(function* () {
  const server = yield* listening(0)
  const address = server.address()
  yield* close(server)
  return typeof address === "object" && address !== null ? address.port : 0
})

/** A port something else holds for the scope. */
export const occupiedPort = Effect.acquireRelease(listening(0), close).pipe(
  Effect.map((server) => {
    const address = server.address()
    return typeof address === "object" && address !== null ? address.port : 0
  })
)
