import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { getRequestListener } from "@hono/node-server"
import { Effect } from "effect"
import type { Hono } from "hono"
import { GIT_PATH, type GitHttpBackend } from "../git/GitHttpBackend"
import type { ApiEnv } from "../rest/route"

/** The three faces of the emulator behind one port. */
interface SimHandlers {
  readonly api: Hono<ApiEnv>
  readonly control: Hono
  readonly git: GitHttpBackend
  /** Aborted first on shutdown, so hanging requests finish before connections close. */
  readonly shutdown: AbortController
}

/**
 * Listens on 127.0.0.1 (scoped): `/_sim/*` goes to the control API, `/{owner}/{name}.git/*` to git's
 * smart HTTP, everything else to the REST and GraphQL API. The finalizer ends every connection.
 */
export const serve = (handlers: SimHandlers, port: number, host: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: ReturnType<typeof createServer>; readonly url: string }, Error>((resume) => {
      const api = getRequestListener(handlers.api.fetch)
      const control = getRequestListener(handlers.control.fetch)
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const path = (req.url ?? "/").split("?")[0] ?? "/"
        const git = path.match(GIT_PATH)
        if (git !== null) return handlers.git.handle(req, res, git)
        return path.startsWith("/_sim/") ? void control(req, res) : void api(req, res)
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, host, () => {
        const address = server.address() as AddressInfo
        resume(Effect.succeed({ server, url: `http://${host}:${address.port}` }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        handlers.shutdown.abort()
        handlers.git.stop()
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      })
  )
