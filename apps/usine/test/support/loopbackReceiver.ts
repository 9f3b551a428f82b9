import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** One request a loopback receiver got: its path, headers and raw body. */
export interface ReceivedRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * An HTTP endpoint on 127.0.0.1 for the scope (a Slack hook, a webhook, ntfy, an OTLP collector stand-in): it keeps
 * every request it received, in order, and answers each 200 with `answer`.
 */
export const loopbackReceiver = (answer: { readonly contentType: string; readonly body: string } = { contentType: "text/plain", body: "ok" }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly origin: string; readonly received: Array<ReceivedRequest>; readonly close: () => void }>((resume) => {
      const received: Array<ReceivedRequest> = []
      const server = createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => {
          received.push({ path: req.url ?? "", headers: req.headers, body })
          res.writeHead(200, { "content-type": answer.contentType }).end(answer.body)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => void server.close() })))
    }),
    (receiver) => Effect.sync(receiver.close)
  )
