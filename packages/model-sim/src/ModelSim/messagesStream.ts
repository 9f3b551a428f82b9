import type { AnthropicMessage } from "./anthropicMessage"
import { halves } from "./responsesStream"
import type { WireStream } from "./WireStream"

/**
 * One turn as an Anthropic Messages API event stream, as Claude Code reads it: `message_start` (input usage),
 * `ping`, each content block as `content_block_start`, its deltas (`text_delta`, or `input_json_delta` holding the
 * tool input as partial JSON), `content_block_stop`, then `message_delta` with the stop reason and output usage,
 * and `message_stop`. Every event is named as the SSE `event:` and as the payload's `type`.
 */
export const messagesStream = (message: AnthropicMessage): WireStream => {
  const frame = (type: string, payload: Record<string, unknown> = {}): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`
  const start = frame("message_start", {
    message: {
      id: message.id,
      type: "message",
      role: "assistant",
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: 1 }
    }
  })
  const blocks = message.content.flatMap((block, index) => {
    const [opened, deltas] =
      block.type === "text"
        ? [{ type: "text", text: "" }, halves(block.text).map((text) => ({ type: "text_delta", text }))]
        : [
            { type: "tool_use", id: block.id, name: block.name, input: {} },
            halves(JSON.stringify(block.input)).map((partial_json) => ({ type: "input_json_delta", partial_json }))
          ]
    return [
      frame("content_block_start", { index, content_block: opened }),
      ...deltas.map((delta) => frame("content_block_delta", { index, delta })),
      frame("content_block_stop", { index })
    ]
  })
  const frames = [
    start,
    frame("ping"),
    ...blocks,
    frame("message_delta", {
      delta: { stop_reason: message.stopReason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens }
    }),
    frame("message_stop")
  ]
  // message_start, ping, the first block's start and first delta: the answer has visibly started.
  return { frames, cutAt: 4 }
}
