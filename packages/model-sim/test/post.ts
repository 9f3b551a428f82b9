import { Effect } from "effect"

/** One server-sent event: its `event:` name (if any) and its `data:` payload. */
interface SseEvent {
  readonly event: string | undefined
  readonly data: string
}

interface Posted {
  readonly status: number
  readonly headers: Headers
  /** The body received before the stream ended or broke. */
  readonly body: string
  /** Why reading the body failed (a dropped connection), if it did. */
  readonly broken: string | undefined
  readonly events: ReadonlyArray<SseEvent>
}

const parseSse = (body: string): ReadonlyArray<SseEvent> =>
  body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n")
      const event = lines.find((l) => l.startsWith("event: "))?.slice("event: ".length)
      const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice("data: ".length)).join("\n")
      return { event, data }
    })

/** POSTs JSON with real `fetch` and reads the whole body, keeping what arrived if the connection drops. */
export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async (): Promise<Posted> => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
    const decoder = new TextDecoder()
    let text = ""
    let broken: string | undefined
    try {
      for await (const chunk of res.body ?? []) text += decoder.decode(chunk as Uint8Array, { stream: true })
    } catch (error) {
      broken = String(error)
    }
    return { status: res.status, headers: res.headers, body: text, broken, events: parseSse(text) }
  })

/** The JSON payloads of the events, in order. */
export const payloads = (posted: Posted): ReadonlyArray<Record<string, any>> =>
  posted.events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data) as Record<string, any>)
