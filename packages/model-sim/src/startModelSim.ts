import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { anthropicMessage, messageBody } from "./ModelSim/anthropicMessage"
import { chatStream } from "./ModelSim/chatStream"
import { messagesStream } from "./ModelSim/messagesStream"
import { conversationKey, lastToolOutput, offeredTools, type RecordedRequest, statedWorkdir } from "./ModelSim/RecordedRequest"
import { responsesStream } from "./ModelSim/responsesStream"
import type { WireStream } from "./ModelSim/WireStream"
import { actionOf, type Fault, isFault, type ModelScript, type Turn, turnForRequest, usageOf } from "./ModelScript"

/** A running scripted model server. */
export interface RunningModelSim {
  /** Origin, `http://127.0.0.1:PORT`. */
  readonly url: string
  /** What a CLI takes as its provider's base URL: `${url}/v1`. */
  readonly baseUrl: string
  /** Every request received so far, in arrival order (a live array). */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Stops listening and drops every open connection, hanging requests included. */
  readonly close: () => Promise<void>
}

type Endpoint = "responses" | "chat" | "messages"

const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  "/v1/responses": "responses",
  "/v1/chat/completions": "chat",
  "/v1/messages": "messages"
}

/** An error body in the wire format's own shape: Anthropic's `{ type: "error", error }`, OpenAI's `{ error }`. */
const errorBody = (endpoint: Endpoint | undefined, type: { readonly openai: string; readonly anthropic: string }, message: string) =>
  endpoint === "messages"
    ? { type: "error", error: { type: type.anthropic, message } }
    : { error: { message, type: type.openai } }

const INVALID = { openai: "invalid_request_error", anthropic: "invalid_request_error" }

/** The text a `cut` turn starts to say before its connection drops. */
const CUT_TEXT = "Let me look at the repository first, then I will"

/**
 * Starts the scripted model on 127.0.0.1 (port 0 picks a free one). It answers `POST /v1/responses` (Codex),
 * `POST /v1/chat/completions` (Pi) and `POST /v1/messages` (Claude Code, streamed or not) with turns of the script,
 * one turn per request of a conversation; and `GET /v1/models`, `POST /v1/messages/count_tokens` and `HEAD /` (Claude
 * Code's reachability check). For callers outside Effect; Effect code uses the `ModelSim` layer.
 */
export const startModelSim = (script: ModelScript, options: { readonly port?: number } = {}): Promise<RunningModelSim> => {
  const model = script.model ?? "sim-model"
  const requests: Array<RecordedRequest> = []
  const counters = new Map<string, number>()

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }

  const stream = (res: ServerResponse, wire: WireStream, cut: boolean) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
    const frames = cut ? wire.frames.slice(0, wire.cutAt) : wire.frames
    for (const frame of frames) res.write(frame)
    if (cut) res.write("", () => res.destroy())
    else res.end()
  }

  const fault = (res: ServerResponse, endpoint: Endpoint, turn: Fault, render: (turn: Exclude<Turn, Fault>) => WireStream) => {
    switch (turn.fault) {
      case "429": {
        const message = `Rate limit reached for ${model}. Please try again in ${turn.retryAfter}s.`
        const body =
          endpoint === "messages"
            ? { type: "error", error: { type: "rate_limit_error", message } }
            : { error: { message, type: "requests", code: "rate_limit_exceeded" } }
        return json(res, 429, body, { "retry-after": String(turn.retryAfter) })
      }
      case "500":
        return json(
          res,
          500,
          errorBody(endpoint, { openai: "server_error", anthropic: "api_error" }, "The server had an error while processing your request.")
        )
      case "cut":
        return stream(res, render({ say: CUT_TEXT }), true)
      case "hang":
        return // accepted, never answered: only close() ends it
    }
  }

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    const apiKey = req.headers["x-api-key"]
    const record = (entry: Omit<RecordedRequest, "method" | "path" | "authorization" | "apiKey">) =>
      requests.push({
        method: req.method ?? "GET",
        path,
        authorization: req.headers.authorization,
        apiKey: typeof apiKey === "string" ? apiKey : undefined,
        ...entry
      })
    const outside = { conversation: "", index: 0, turn: undefined, model: undefined, tools: [], lastToolOutput: undefined }
    if (req.method === "HEAD" && path === "/") {
      record({ ...outside, body: undefined })
      res.writeHead(200)
      return res.end()
    }
    if (req.method === "GET" && path === "/v1/models") {
      record({ ...outside, body: undefined })
      return json(res, 200, { object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "usine" }] })
    }
    const endpoint = req.method === "POST" ? ENDPOINTS[path] : undefined
    let body: unknown
    try {
      body = raw === "" ? {} : JSON.parse(raw)
    } catch {
      record({ ...outside, body: raw })
      return json(res, 400, errorBody(endpoint, INVALID, "the request body is not JSON"))
    }
    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      record({ ...outside, body })
      // A rough count, as Claude Code only weighs its context with it: four characters a token.
      return json(res, 200, { input_tokens: Math.ceil(raw.length / 4) })
    }
    if (endpoint === undefined) {
      record({ ...outside, body })
      return json(res, 404, errorBody(endpoint, INVALID, `no route for ${req.method} ${path}`))
    }
    const fields = body as { readonly model?: unknown; readonly stream?: unknown; readonly stream_options?: { readonly include_usage?: unknown } }
    const conversation = conversationKey(body)
    const index = counters.get(conversation) ?? 0
    counters.set(conversation, index + 1)
    const turn = turnForRequest(script, index)
    const offered = offeredTools(body)
    const requested = typeof fields.model === "string" ? fields.model : undefined
    record({ conversation, index, turn, model: requested, tools: offered, lastToolOutput: lastToolOutput(body), body })
    const id = requests.length
    const message = (t: Exclude<Turn, Fault>) =>
      anthropicMessage({ action: actionOf(t), usage: usageOf(t), offered, workdir: statedWorkdir(body), id, model: requested ?? model })
    if (fields.stream !== true && endpoint !== "messages") {
      return json(res, 400, errorBody(endpoint, INVALID, "the scripted model only answers streamed requests"))
    }
    const render = (t: Exclude<Turn, Fault>): WireStream => {
      const common = { action: actionOf(t), usage: usageOf(t), offered, id, model: requested ?? model, createdAt: Date.now() }
      switch (endpoint) {
        case "responses":
          return responsesStream(common)
        case "chat":
          return chatStream({ ...common, includeUsage: fields.stream_options?.include_usage === true })
        case "messages":
          return messagesStream(message(t))
      }
    }
    if (isFault(turn)) {
      // A cut has no meaning for a whole answer: a non-streamed request meets it as a dropped connection.
      if (fields.stream !== true && turn.fault === "cut") return void res.destroy()
      return fault(res, endpoint, turn, render)
    }
    if (fields.stream !== true) return json(res, 200, messageBody(message(turn)))
    stream(res, render(turn), false)
  }

  const server = createServer((req, res) => {
    let raw = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (raw += chunk))
    req.on("end", () => answer(req, res, raw))
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      const url = `http://127.0.0.1:${port}`
      resolve({
        url,
        baseUrl: `${url}/v1`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })
}
