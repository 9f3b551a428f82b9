import type { Action, TurnUsage } from "../ModelScript"
import { claudeToolUses } from "./claudeToolUses"

/** One content block of an Anthropic message. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> }

/** One turn as an Anthropic Messages API message, before it is sent whole or as a stream. */
export interface AnthropicMessage {
  readonly id: string
  readonly model: string
  readonly content: ReadonlyArray<ContentBlock>
  readonly stopReason: "end_turn" | "tool_use"
  /** Anthropic counts cache reads apart from `input_tokens`; the script's `input` includes them, as OpenAI's does. */
  readonly usage: {
    readonly input_tokens: number
    readonly cache_creation_input_tokens: number
    readonly cache_read_input_tokens: number
    readonly output_tokens: number
  }
}

export const anthropicMessage = (options: {
  readonly action: Action
  readonly usage: TurnUsage
  readonly offered: ReadonlyArray<string>
  readonly workdir: string | undefined
  readonly id: number
  readonly model: string
}): AnthropicMessage => {
  const { action, id, usage } = options
  const cached = usage.cached ?? 0
  const content: ReadonlyArray<ContentBlock> =
    action._tag === "Say"
      ? [{ type: "text", text: action.text }]
      : claudeToolUses(action, options.offered, options.workdir).map((call, i) => ({
          type: "tool_use",
          id: `toolu_sim_${id}_${i}`,
          name: call.name,
          input: call.arguments
        }))
  return {
    id: `msg_sim_${id}`,
    model: options.model,
    content,
    stopReason: action._tag === "Say" ? "end_turn" : "tool_use",
    usage: {
      input_tokens: Math.max(0, usage.input - cached),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
      output_tokens: usage.output
    }
  }
}

/** The message as a non-streaming `POST /v1/messages` answers it. */
export const messageBody = (message: AnthropicMessage) => ({
  id: message.id,
  type: "message",
  role: "assistant",
  model: message.model,
  content: message.content,
  stop_reason: message.stopReason,
  stop_sequence: null,
  usage: message.usage
})
