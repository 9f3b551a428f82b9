import { createHash } from "node:crypto"
import type { Turn } from "../ModelScript"

/** One request the scripted model received, for tests' assertions. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  /** The `authorization` header, as sent. */
  readonly authorization: string | undefined
  /** Which session the request belongs to (Codex's `prompt_cache_key`, else a digest of the first user message). */
  readonly conversation: string
  /** 0-based position of the request in its conversation. */
  readonly index: number
  /** What answered it; `undefined` for requests outside the script (`GET /v1/models`, unknown paths). */
  readonly turn: Turn | undefined
  readonly model: string | undefined
  /** Names of the tools the request offered the model. */
  readonly tools: ReadonlyArray<string>
  /** Text of the last tool result the request carried back to the model, if any. */
  readonly lastToolOutput: string | undefined
  /** The parsed JSON body, as sent. */
  readonly body: unknown
}

type Json = Readonly<Record<string, unknown>>

const obj = (value: unknown): Json =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {}
const arr = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** Text of a content field that is a string or a list of `{ text }` parts. */
const text = (content: unknown): string =>
  typeof content === "string" ? content : arr(content).map((part) => str(obj(part)["text"]) ?? "").join("")

/** The conversation items of a Responses (`input`) or chat completions (`messages`) body. */
const items = (body: Json): ReadonlyArray<Json> => [...arr(body["input"]), ...arr(body["messages"])].map(obj)

/** Tool names offered by either API (`{ name }` for Responses, `{ function: { name } }` for chat completions). */
export const offeredTools = (body: unknown): ReadonlyArray<string> =>
  arr(obj(body)["tools"]).flatMap((tool) => {
    const name = str(obj(tool)["name"]) ?? str(obj(obj(tool)["function"])["name"])
    return name === undefined ? [] : [name]
  })

export const lastToolOutput = (body: unknown): string | undefined => {
  const results = items(obj(body)).filter(
    (item) => item["type"] === "function_call_output" || item["type"] === "custom_tool_call_output" || item["role"] === "tool"
  )
  const last = results[results.length - 1]
  return last === undefined ? undefined : text(last["output"] ?? last["content"])
}

/** Codex names its thread in every request; other clients resend their first user message with each request. */
export const conversationKey = (body: unknown): string => {
  const cacheKey = str(obj(body)["prompt_cache_key"])
  if (cacheKey !== undefined) return cacheKey
  const first = items(obj(body)).find((item) => item["role"] === "user")
  if (first === undefined) return "default"
  return createHash("sha256").update(text(first["content"])).digest("hex").slice(0, 16)
}
