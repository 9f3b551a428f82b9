import { Data, Effect, Queue, type Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { makeUsageReader } from "./ModelProxy/usageOfResponse"

/** The most of a request body the proxy reads: a CLI's whole conversation, with room. */
const REQUEST_LIMIT = 32 * 1024 * 1024

/**
 * What the CLI is given as its key: not a secret. The proxy replaces it (or its absence) with the provider's key,
 * which never enters the sandbox (ADR 0086).
 */
export const PROXY_PLACEHOLDER_KEY = "usine-model-proxy"

/** The proxy could not listen (its port, on a reattach, is taken). */
class ModelProxyNotStarted extends Data.TaggedError("ModelProxyNotStarted")<{ readonly port: number; readonly cause: unknown }> {
  override get message() {
    return `the model proxy could not listen on 127.0.0.1:${this.port}: ${String(this.cause)}`
  }
}

/** One response the proxy forwarded and what it counted for it. */
interface MeteredResponse {
  readonly usage: Usage
  /** False when the response reported no usage and its size stood in for it. */
  readonly reported: boolean
}

interface ModelProxy {
  /** The base URL the CLI is given: plain HTTP on the daemon's loopback, the provider's path kept. */
  readonly baseUrl: string
  readonly port: number
  /** The provider's path, which the base URL keeps (`/v1`), or empty. */
  readonly basePath: string
  /** One entry per answered model request, in the order they ended. */
  readonly metered: Queue.Dequeue<MeteredResponse>
}

const HOP_HEADERS = new Set([
  "host", "connection", "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding",
  "upgrade", "content-length", "accept-encoding", "authorization", "x-api-key"
])

/** Chat completions answer a stream's usage only when asked: the proxy asks, whatever the CLI sent. */
const withUsageAsked = (path: string, body: Buffer): Buffer => {
  if (!path.split("?")[0]!.endsWith("/chat/completions") || body.length === 0) return body
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return body
    const request = parsed as Record<string, unknown>
    if (request["stream"] !== true) return body
    const options = typeof request["stream_options"] === "object" && request["stream_options"] !== null ? request["stream_options"] : {}
    return Buffer.from(JSON.stringify({ ...request, stream_options: { ...options, include_usage: true } }))
  } catch {
    return body
  }
}

/**
 * A daemon-side model proxy for one Attempt (ADR 0086): the CLI in the sandbox talks plain HTTP to it, it adds
 * the provider's key and forwards to the provider, and it reads the `usage` of every answer (OpenAI Responses, chat
 * completions, Anthropic Messages, streamed or not) as it passes, with bounded memory. A POST answered 2xx with no
 * usage it can read (a stream the CLI broke off early) counts its request and its answer at four bytes a token, so a
 * request that hides its usage is not free (Anthropic's free `count_tokens` aside). A
 * provider it cannot reach, or a stream that breaks, breaks the CLI's connection the same way. It
 * listens on `port` when given (a reattach keeps the URL the running CLI holds), else on a free one; it closes
 * with the scope.
 */
export const startModelProxy = (options: {
  readonly providerBaseUrl: string
  readonly apiKey: string | undefined
  readonly port?: number
}): Effect.Effect<ModelProxy, ModelProxyNotStarted, Scope.Scope> =>
  Effect.gen(function* () {
    const provider = new URL(options.providerBaseUrl)
    const metered = yield* Effect.acquireRelease(Queue.unbounded<MeteredResponse>(), Queue.shutdown)
    const server = http.createServer((req, res) => forward(req, res))
    const forward = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Array<Buffer> = []
      let size = 0
      req.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > REQUEST_LIMIT) {
          res.writeHead(413, { "content-type": "application/json" }).end(`{"error":{"message":"request too large for usine's model proxy"}}`)
          req.destroy()
          return
        }
        chunks.push(chunk)
      })
      req.on("end", () => {
        if (size > REQUEST_LIMIT) return
        void send(req, res, Buffer.concat(chunks))
      })
    }
    const send = async (req: http.IncomingMessage, res: http.ServerResponse, requestBody: Buffer) => {
      const path = req.url ?? "/"
      const target = new URL(path.startsWith("/") ? path : `/${path}`, provider.origin)
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_HEADERS.has(name) && typeof value === "string") headers[name] = value
      }
      headers["accept-encoding"] = "identity"
      if (options.apiKey !== undefined) {
        if (req.headers["x-api-key"] !== undefined) headers["x-api-key"] = options.apiKey
        else headers["authorization"] = `Bearer ${options.apiKey}`
      }
      const abort = new AbortController()
      res.on("close", () => abort.abort())
      const method = req.method ?? "GET"
      const body = method === "GET" || method === "HEAD" ? undefined : withUsageAsked(path, requestBody)
      let upstream: Response
      try {
        upstream = await fetch(target, { method, headers, ...(body === undefined ? {} : { body }), signal: abort.signal, redirect: "manual" })
      } catch {
        // The CLI meets a provider it cannot reach as it would without the proxy: a connection that drops.
        res.destroy()
        return
      }
      const responseHeaders: Record<string, string> = {}
      upstream.headers.forEach((value, name) => {
        if (!HOP_HEADERS.has(name) && name !== "content-encoding") responseHeaders[name] = value
      })
      res.writeHead(upstream.status, responseHeaders)
      const reader = makeUsageReader(upstream.headers.get("content-type") ?? undefined)
      let cut = false
      try {
        if (upstream.body !== null) {
          for await (const chunk of upstream.body) {
            reader.push(chunk)
            if (!res.write(chunk)) await new Promise<void>((resolve) => res.once("drain", resolve).once("close", resolve))
          }
        }
      } catch {
        // The provider or the CLI hung up: the CLI sees its stream break, and what went past is still counted.
        cut = true
      } finally {
        if (cut) res.destroy()
        else res.end()
        const { bytes, usage } = reader.end()
        if (usage !== undefined) Queue.unsafeOffer(metered, { usage, reported: true })
        else if (method === "POST" && upstream.ok && !path.split("?")[0]!.endsWith("/count_tokens")) {
          const estimate = { inputTokens: Math.ceil((body?.length ?? 0) / 4), outputTokens: Math.ceil(bytes / 4), cachedInputTokens: 0 }
          Queue.unsafeOffer(metered, { usage: estimate, reported: false })
        }
      }
    }
    const port = yield* Effect.acquireRelease(
      Effect.async<number, ModelProxyNotStarted>((resume) => {
        const failed = (cause: unknown) => resume(Effect.fail(new ModelProxyNotStarted({ port: options.port ?? 0, cause })))
        server.once("error", failed)
        server.listen(options.port ?? 0, "127.0.0.1", () => {
          server.off("error", failed)
          resume(Effect.succeed((server.address() as AddressInfo).port))
        })
      }),
      () => Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
    )
    const basePath = provider.pathname === "/" ? "" : provider.pathname.replace(/\/$/, "")
    return { baseUrl: `http://127.0.0.1:${port}${basePath}`, port, basePath, metered }
  })
