import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * Git's smart HTTP protocol on 127.0.0.1 through `git http-backend`, behind Basic authentication with the
 * user `x-access-token` and the given token, the way GitHub takes installation tokens.
 */
export const gitHttpServer = (projectRoot: string, token: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: http.Server }>((resume) => {
      const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`
      const server = http.createServer((request, response) => {
        if (request.headers.authorization !== expected) {
          response.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end()
          return
        }
        const url = new URL(request.url ?? "/", "http://127.0.0.1")
        const backend = spawn("git", ["http-backend"], {
          env: {
            ...process.env,
            GIT_PROJECT_ROOT: projectRoot,
            GIT_HTTP_EXPORT_ALL: "1",
            PATH_INFO: url.pathname,
            QUERY_STRING: url.search.slice(1),
            REQUEST_METHOD: request.method ?? "GET",
            CONTENT_TYPE: request.headers["content-type"] ?? "",
            REMOTE_USER: "x-access-token"
          }
        })
        request.pipe(backend.stdin)
        const chunks: Array<Buffer> = []
        backend.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
        backend.on("close", () => {
          const output = Buffer.concat(chunks)
          const split = output.indexOf("\r\n\r\n")
          const head = output.subarray(0, split).toString("utf8").split("\r\n")
          const headers: Record<string, string> = {}
          let status = 200
          for (const line of head) {
            const [name, ...value] = line.split(": ")
            if (name === undefined) continue
            if (name.toLowerCase() === "status") status = Number.parseInt(value.join(": "), 10)
            else headers[name] = value.join(": ")
          }
          response.writeHead(status, headers).end(output.subarray(split + 4))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
