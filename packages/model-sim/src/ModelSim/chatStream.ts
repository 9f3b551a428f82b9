import type { Action, TurnUsage } from "../ModelScript"
import { halves } from "./responsesStream"
import { toolCall } from "./toolCall"
import type { WireStream } from "./WireStream"

/**
 * One turn as OpenAI chat completions chunks, as Pi's OpenAI client reads them: a role chunk, content or
 * `tool_calls` deltas, a chunk with `finish_reason`, a usage chunk with no choices when the request asked for
 * `stream_options.include_usage`, then `data: [DONE]`.
 */
export const chatStream = (options: {
  readonly action: Action
  readonly usage: TurnUsage
  readonly offered: ReadonlyArray<string>
  readonly includeUsage: boolean
  readonly id: number
  readonly model: string
  readonly createdAt: number
}): WireStream => {
  const { action, id, usage } = options
  const chunk = (fields: Record<string, unknown>): string =>
    `data: ${JSON.stringify({
      id: `chatcmpl-${id}`,
      object: "chat.completion.chunk",
      created: Math.floor(options.createdAt / 1000),
      model: options.model,
      ...fields
    })}\n\n`
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk({ choices: [{ index: 0, delta: d, finish_reason: finish }] })

  let body: ReadonlyArray<string>
  let finish: string
  if (action._tag === "Say") {
    body = halves(action.text).map((content) => delta({ content }))
    finish = "stop"
  } else {
    const call = toolCall(action, options.offered)
    const [head = "", tail = ""] = halves(JSON.stringify(call.arguments))
    body = [
      delta({ tool_calls: [{ index: 0, id: `call_${id}`, type: "function", function: { name: call.name, arguments: head } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: tail } }] })
    ]
    finish = "tool_calls"
  }

  const cached = usage.cached ?? 0
  const usageChunk = chunk({
    choices: [],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: cached }
    }
  })
  const frames = [
    delta({ role: "assistant", content: "" }),
    ...body,
    delta({}, finish),
    ...(options.includeUsage ? [usageChunk] : []),
    "data: [DONE]\n\n"
  ]
  // The role chunk and the first delta: the answer has visibly started.
  return { frames, cutAt: 2 }
}
