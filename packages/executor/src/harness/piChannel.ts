import type { InterventionChannel, MessageAnswer } from "./Harness"
import { jsonLine, str } from "./jsonLine"

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

/**
 * Pi's RPC stdin (ADR 0062): an operator message is a `prompt` with `streamingBehavior: "steer"`. While Pi works it is
 * queued as steering and goes to the model before its next request; while Pi is idle it starts a new run in the same
 * session. Pi answers each command with a `response` carrying its id.
 */
export const piChannel: InterventionChannel = {
  _tag: "Stdin",
  message: (text, id) => piCommand({ id, type: "prompt", message: text, streamingBehavior: "steer" }),
  answer: (line, id): MessageAnswer | undefined => {
    const response = piResponse(line, id)
    if (response === undefined) return undefined
    return response.success
      ? { _tag: "Accepted", detail: "pi accepted it: it reaches the model with the agent's next request" }
      : { _tag: "Refused", reason: `pi refused it: ${response.error}` }
  }
}
