import { createHash } from "node:crypto"
import type { Turn } from "../ModelScript"

/** One request the scripted model received, for tests' assertions. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
  /** The `authorization` header, as sent (OpenAI clients). */
  readonly authorization: string | undefined
  /** The `x-api-key` header, as sent (Anthropic clients). */
  readonly apiKey: string | undefined
  /**
   * Which session the request belongs to: Codex's `prompt_cache_key`, Claude Code's `session_id` in
   * `metadata.user_id`, else a digest of the first user message.
   */
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

/** Tool results carried back: Responses output items, chat `tool` messages, Anthropic `tool_result` blocks of a user message. */
const toolResults = (item: Json): ReadonlyArray<Json> => {
  if (item["type"] === "function_call_output" || item["type"] === "custom_tool_call_output" || item["role"] === "tool") return [item]
  if (item["role"] !== "user") return []
  return arr(item["content"]).map(obj).filter((block) => block["type"] === "tool_result")
}

export const lastToolOutput = (body: unknown): string | undefined => {
  const results = items(obj(body)).flatMap(toolResults)
  const last = results[results.length - 1]
  return last === undefined ? undefined : text(last["output"] ?? last["content"])
}

/** Claude Code's session id, inside the JSON string it sends as `metadata.user_id`. */
const claudeSession = (body: Json): string | undefined => {
  const userId = str(obj(body["metadata"])["user_id"])
  if (userId === undefined) return undefined
  try {
    return str(obj(JSON.parse(userId))["session_id"])
  } catch {
    return undefined
  }
}

/** Codex and Claude Code name their session in every request; other clients resend their first user message with each. */
export const conversationKey = (body: unknown): string => {
  const cacheKey = str(obj(body)["prompt_cache_key"]) ?? claudeSession(obj(body))
  if (cacheKey !== undefined) return cacheKey
  const first = items(obj(body)).find((item) => item["role"] === "user")
  if (first === undefined) return "default"
  return createHash("sha256").update(text(first["content"])).digest("hex").slice(0, 16)
}

/** The working directory Claude Code states in its system prompt, to make the script's relative file paths absolute. */
export const statedWorkdir = (body: unknown): string | undefined => {
  const system = obj(body)["system"]
  return /^\s*-?\s*(?:Primary working directory|Working directory): (.+)$/m.exec(text(system))?.[1]?.trim()
}
