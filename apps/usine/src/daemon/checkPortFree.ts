import { createServer } from "node:net"
import { Data, Effect } from "effect"

/** The Board's address is taken, or cannot be listened on. */
class BoardPortUnavailable extends Data.TaggedError("BoardPortUnavailable")<{
  readonly host: string
  readonly port: number
  readonly code: string
}> {
  override get message() {
    const address = `${this.host.includes(":") ? `[${this.host}]` : this.host}:${this.port}`
    return this.code === "EADDRINUSE"
      ? `the board cannot listen on ${address}: the port is already in use (another usine? change board.listen)`
      : `the board cannot listen on ${address}: ${this.code} (check board.listen)`
  }
}

/**
 * Listens on the Board's address and closes at once: a taken port stops the start before the ledger and the
 * engine do any work. The Board itself binds the port moments later.
 */
export const checkPortFree = (host: string, port: number): Effect.Effect<void, BoardPortUnavailable> =>
  Effect.async<void, BoardPortUnavailable>((resume) => {
    const server = createServer()
    server.once("error", (error: NodeJS.ErrnoException) =>
      resume(Effect.fail(new BoardPortUnavailable({ host, port, code: error.code ?? error.message })))
    )
    server.listen({ host, port, exclusive: true }, () => server.close(() => resume(Effect.void)))
  })
