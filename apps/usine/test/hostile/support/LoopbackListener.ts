import { createServer, type Server, type Socket } from "node:net"
import { Effect } from "effect"

/** One connection the listener took, as it arrived: every request head, and every byte (bodies included). */
export interface ListenerConnection {
  readonly raw: string
  /** Each request's first line (`GET /acme/widgets.git/info/refs?… HTTP/1.1`, or a proxy's absolute form). */
  readonly requests: ReadonlyArray<string>
  /** The decoded value of every `Authorization` and `Proxy-Authorization` header (Basic decoded to `user:password`). */
  readonly credentials: ReadonlyArray<string>
}

export interface LoopbackListener {
  readonly port: number
  readonly url: string
  readonly connections: () => ReadonlyArray<ListenerConnection>
}

const CHALLENGE =
  "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"GitHub\"\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

const decoded = (value: string): string => {
  const basic = /^Basic\s+(\S+)/i.exec(value.trim())
  return basic === null ? value.trim() : Buffer.from(basic[1] ?? "", "base64").toString("utf8")
}

/**
 * A hostile host on 127.0.0.1 for the scope: it answers every HTTP request (proxy requests too) with a Basic
 * challenge, as GitHub does, so that a git command aimed at it by any config asks for the token and sends it, and
 * it keeps everything every connection sent.
 */
export const scopedListener = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly listener: LoopbackListener; readonly sockets: Set<Socket> }>((resume) => {
    const connections: Array<{ raw: Buffer; requests: Array<string>; credentials: Array<string> }> = []
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      sockets.add(socket)
      const connection = { raw: Buffer.alloc(0), requests: [] as Array<string>, credentials: [] as Array<string> }
      connections.push(connection)
      let pending = Buffer.alloc(0)
      socket.on("data", (chunk: Buffer) => {
        connection.raw = Buffer.concat([connection.raw, chunk])
        pending = Buffer.concat([pending, chunk])
        const end = pending.indexOf("\r\n\r\n")
        if (end < 0) return
        const head = pending.subarray(0, end).toString("latin1").split("\r\n")
        const length = Number(/^content-length:\s*(\d+)/im.exec(head.join("\n"))?.[1] ?? 0)
        if (pending.length < end + 4 + length) return
        connection.requests.push(head[0] ?? "")
        for (const line of head.slice(1)) {
          const header = /^(?:proxy-)?authorization:(.*)$/i.exec(line)
          if (header !== null) connection.credentials.push(decoded(header[1] ?? ""))
        }
        pending = Buffer.alloc(0)
        socket.end(CHALLENGE)
      })
      socket.on("error", () => undefined)
      socket.on("close", () => sockets.delete(socket))
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        server,
        sockets,
        listener: {
          port,
          url: `http://127.0.0.1:${port}`,
          connections: () => connections.map((c) => ({ raw: c.raw.toString("latin1"), requests: [...c.requests], credentials: [...c.credentials] }))
        }
      }))
    })
  }),
  ({ server, sockets }) =>
    Effect.async<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ listener }) => listener))
