import type { InterventionChannel, MessageAnswer } from "./Harness"
import { arr, jsonLine, obj, str } from "./jsonLine"

/** The uuid of the task's own user message; operator messages get theirs from the daemon. */
export const CLAUDE_TASK_UUID = "00000000-0000-4000-8000-000000000000"

/** One user message for Claude Code's `--input-format stream-json`, with its uuid. */
export const claudeUserLine = (text: string, uuid: string): string =>
  `${JSON.stringify({ type: "user", uuid, message: { role: "user", content: [{ type: "text", text }] } })}\n`

/** The uuid of a user message of the task or an operator that Claude Code replayed on this line, if it is one. */
export const replayedUuid = (event: Readonly<Record<string, unknown>>): string | undefined => {
  if (event["type"] !== "user" || event["isReplay"] !== true) return undefined
  const content = arr(obj(event["message"])["content"])
  return content.some((block) => obj(block)["type"] === "text") ? str(event["uuid"]) : undefined
}

/**
 * Claude Code's streaming input (ADR 0062): each operator message is one more user message on stdin. Claude Code
 * takes it into the running turn (after the current tool call) or starts a new turn with it when it was done, and
 * `--replay-user-messages` echoes it, uuid included, once taken: that echo is the acknowledgment.
 */
export const claudeChannel: InterventionChannel = {
  _tag: "Stdin",
  message: claudeUserLine,
  answer: (line, id): MessageAnswer | undefined => {
    if (!line.includes(id)) return undefined
    const parsed = jsonLine(line, 0)
    if (parsed._tag !== "Event" || replayedUuid(parsed.event) !== id) return undefined
    return { _tag: "Accepted", detail: "claude took it into its session: it reaches the model with the next request" }
  }
}
