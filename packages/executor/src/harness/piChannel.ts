import type { InterventionChannel, MessageAnswer } from "./Harness"
import { arr, jsonLine, obj, str } from "./jsonLine"

/** The id of the task's own `prompt` command; operator messages get theirs from the daemon. */
export const PI_TASK_ID = "usine-task"

/** The id of the `get_state` sent after the task: its answer names Pi's session, as `--mode json`'s header did. */
export const PI_STATE_ID = "usine-state"

/**
 * The ids of the `get_state` probes fed once Pi's `ended`-th run ended (ADR 0067): the `probe`-th asks again after an
 * answer that said Pi was still busy.
 */
export const PI_IDLE_PROBE = "usine-idle-"
export const piIdleProbeId = (ended: number, probe: number): string => `${PI_IDLE_PROBE}${ended}-${probe}`

/** One RPC command line for Pi's stdin. */
export const piCommand = (command: Readonly<Record<string, unknown>>): string => `${JSON.stringify(command)}\n`

/** Pi's `response` to the command `id` on this line, if it is one: `success` and its `error`. */
const piResponse = (line: string, id: string): { readonly success: boolean; readonly error: string } | undefined => {
  if (!line.includes(id)) return undefined
  const parsed = jsonLine(line, 0)
  if (parsed._tag !== "Event" || parsed.event.type !== "response" || parsed.event["id"] !== id) return undefined
  return { success: parsed.event["success"] === true, error: str(parsed.event["error"]) ?? "refused" }
}

/** What every line of Pi's stream that ends a user message contains, as Pi writes its events. */
const USER_MESSAGE_END = '"type":"message_end","message":{"role":"user"'

/** The text of the user message Pi took into its conversation on this line (`message_end`), if it is one. */
const piUserMessage = (line: string): string | undefined => {
  if (!line.includes(USER_MESSAGE_END)) return undefined
  const parsed = jsonLine(line, 0)
  if (parsed._tag !== "Event" || parsed.event.type !== "message_end") return undefined
  const message = obj(parsed.event["message"])
  if (message["role"] !== "user") return undefined
  return arr(message["content"]).flatMap((block) => (obj(block)["type"] === "text" ? [str(obj(block)["text"]) ?? ""] : [])).join("\n")
}

/**
 * Pi's RPC stdin (ADR 0062): an operator message is a `prompt` with `streamingBehavior: "steer"`. While Pi works it is
 * queued as steering and goes to the model before its next request (after the current tool call); while Pi is idle it
 * starts a new run in the same session. Pi answers each command with a `response` carrying its id: that only says Pi
 * took the command. The message is in the conversation once Pi ends a user message with its text (ADR 0093): until
 * then it is queued.
 */
export const piChannel: InterventionChannel = {
  _tag: "Stdin",
  message: (text, id) => piCommand({ id, type: "prompt", message: text, streamingBehavior: "steer" }),
  answer: (line, id): MessageAnswer | undefined => {
    const response = piResponse(line, id)
    if (response === undefined) return undefined
    return response.success
      ? { _tag: "Queued", detail: "pi queued it: it goes to the model with the agent's next request, after the current tool call" }
      : { _tag: "Refused", reason: `pi refused it: ${response.error}` }
  },
  taken: {
    marker: USER_MESSAGE_END,
    shows: (line, text) => piUserMessage(line) === text,
    detail: "pi took it into the conversation: it reaches the model with the agent's next request"
  }
}
