import { type Action, type TurnUsage } from "../ModelScript"
import { toolCall } from "./toolCall"
import type { WireStream } from "./WireStream"

/**
 * One turn as an OpenAI Responses API event stream, in the order Codex reads it: `response.created`, the output
 * item added, its deltas, the item done, `response.completed` with `usage`. Every event is named twice, as the
 * SSE `event:` and as the payload's `type`, as OpenAI sends them.
 */
export const responsesStream = (options: {
  readonly action: Action
  readonly usage: TurnUsage
  readonly offered: ReadonlyArray<string>
  readonly id: number
  readonly model: string
  readonly createdAt: number
}): WireStream => {
  const { action, id, usage } = options
  let sequence = 0
  const frame = (type: string, payload: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...payload })}\n\n`
  const response = (status: string, output: ReadonlyArray<unknown>) => ({
    id: `resp_${id}`,
    object: "response",
    created_at: Math.floor(options.createdAt / 1000),
    status,
    model: options.model,
    output
  })
  const position = { output_index: 0 }
  const head = [
    frame("response.created", { response: response("in_progress", []) }),
    frame("response.in_progress", { response: response("in_progress", []) })
  ]

  let item: Record<string, unknown>
  let body: ReadonlyArray<string>
  if (action._tag === "Say") {
    item = { id: `msg_${id}`, type: "message", role: "assistant" }
    const part = { item_id: item["id"], ...position, content_index: 0 }
    const done = { ...item, status: "completed", content: [{ type: "output_text", text: action.text, annotations: [] }] }
    body = [
      frame("response.output_item.added", { ...position, item: { ...item, status: "in_progress", content: [] } }),
      frame("response.content_part.added", { ...part, part: { type: "output_text", text: "", annotations: [] } }),
      ...halves(action.text).map((delta) => frame("response.output_text.delta", { ...part, delta })),
      frame("response.output_text.done", { ...part, text: action.text }),
      frame("response.content_part.done", { ...part, part: done.content[0] }),
      frame("response.output_item.done", { ...position, item: done })
    ]
    item = done
  } else {
    const call = toolCall(action, options.offered)
    const args = JSON.stringify(call.arguments)
    const started = { id: `fc_${id}`, type: "function_call", call_id: `call_${id}`, name: call.name }
    const ref = { item_id: started.id, ...position }
    item = { ...started, status: "completed", arguments: args }
    body = [
      frame("response.output_item.added", { ...position, item: { ...started, status: "in_progress", arguments: "" } }),
      ...halves(args).map((delta) => frame("response.function_call_arguments.delta", { ...ref, delta })),
      frame("response.function_call_arguments.done", { ...ref, arguments: args }),
      frame("response.output_item.done", { ...position, item })
    ]
  }

  const cached = usage.cached ?? 0
  const frames = [
    ...head,
    ...body,
    frame("response.completed", {
      response: {
        ...response("completed", [item]),
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: cached },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output
        }
      }
    })
  ]
  // created, in_progress, item added, first delta: the answer has visibly started.
  return { frames, cutAt: 4 }
}

/** A text in two deltas, so clients have to join a streamed answer. */
export const halves = (text: string): ReadonlyArray<string> => {
  if (text.length < 2) return [text]
  const middle = Math.ceil(text.length / 2)
  return [text.slice(0, middle), text.slice(middle)]
}
