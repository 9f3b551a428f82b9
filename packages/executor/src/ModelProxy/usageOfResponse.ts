import type { Usage } from "@usine/core/transcript/TranscriptRow"

/** The most of one SSE line, or of a whole JSON body, the reader holds; past it the rest is counted, not parsed. */
const LINE_LIMIT = 1024 * 1024
const BODY_LIMIT = 8 * 1024 * 1024

type Json = Readonly<Record<string, unknown>>
const obj = (value: unknown): Json =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {}
/** A provider's figure: finite and not below zero, else nothing. */
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0)
const has = (u: Json, key: string): boolean => typeof u[key] === "number"

/**
 * One `usage` object in any of the three wire formats, in usine's terms (input with cached included, as the
 * harnesses report it): chat completions (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`),
 * the Responses API (`input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`), Anthropic Messages
 * (`input_tokens` beside `cache_creation_input_tokens` and `cache_read_input_tokens`, `output_tokens`).
 */
const usageFields = (value: unknown): Usage | undefined => {
  const u = obj(value)
  if (has(u, "prompt_tokens") || has(u, "completion_tokens")) {
    return {
      inputTokens: count(u["prompt_tokens"]),
      outputTokens: count(u["completion_tokens"]),
      cachedInputTokens: count(obj(u["prompt_tokens_details"])["cached_tokens"])
    }
  }
  if (has(u, "input_tokens") || has(u, "output_tokens")) {
    const read = count(u["cache_read_input_tokens"])
    return {
      inputTokens: count(u["input_tokens"]) + count(u["cache_creation_input_tokens"]) + read,
      outputTokens: count(u["output_tokens"]),
      cachedInputTokens: count(obj(u["input_tokens_details"])["cached_tokens"]) + read
    }
  }
  return undefined
}

/** The `usage` an event or a body carries: at its top (chat, Anthropic's `message_delta`), in `response`, or in `message`. */
const usageOfEvent = (event: unknown): Usage | undefined => {
  const e = obj(event)
  return usageFields(e["usage"]) ?? usageFields(obj(e["response"])["usage"]) ?? usageFields(obj(e["message"])["usage"])
}

/** Each figure at the larger of the two: events of one response repeat or grow their totals, never add up. */
const larger = (a: Usage | undefined, b: Usage): Usage =>
  a === undefined
    ? b
    : {
        inputTokens: Math.max(a.inputTokens, b.inputTokens),
        outputTokens: Math.max(a.outputTokens, b.outputTokens),
        cachedInputTokens: Math.max(a.cachedInputTokens, b.cachedInputTokens)
      }

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Reads one response's body as it streams past, with bounded memory, for the usage it reports. */
interface UsageReader {
  readonly push: (chunk: Uint8Array) => void
  /** The usage the response reported, `undefined` when it reported none; `bytes` is how much body went past. */
  readonly end: () => { readonly usage: Usage | undefined; readonly bytes: number }
}

/**
 * A reader for a response of this content type: an event stream is read line by line (`data:` lines as JSON, a line
 * longer than `LINE_LIMIT` skipped), anything else as one JSON body up to `BODY_LIMIT`.
 */
export const makeUsageReader = (contentType: string | undefined): UsageReader => {
  const decoder = new TextDecoder()
  let bytes = 0
  let usage: Usage | undefined
  if ((contentType ?? "").toLowerCase().includes("text/event-stream")) {
    let line = ""
    let skipping = false
    const take = (text: string) => {
      if (skipping) return
      const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
      if (!trimmed.startsWith("data:")) return
      const found = usageOfEvent(parse(trimmed.slice(5).trim()))
      if (found !== undefined) usage = larger(usage, found)
    }
    const feed = (text: string) => {
      let start = 0
      for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
        take(line + text.slice(start, newline))
        line = ""
        skipping = false
        start = newline + 1
      }
      if (skipping) return
      line += text.slice(start)
      if (line.length > LINE_LIMIT) {
        line = ""
        skipping = true
      }
    }
    return {
      push: (chunk) => {
        bytes += chunk.byteLength
        feed(decoder.decode(chunk, { stream: true }))
      },
      end: () => {
        feed(decoder.decode())
        take(line)
        return { usage, bytes }
      }
    }
  }
  let body = ""
  let over = false
  return {
    push: (chunk) => {
      bytes += chunk.byteLength
      if (over) return
      body += decoder.decode(chunk, { stream: true })
      if (body.length > BODY_LIMIT) {
        over = true
        body = ""
      }
    },
    end: () => ({ usage: over ? undefined : usageOfEvent(parse(body + decoder.decode())), bytes })
  }
}
