import type { Action } from "../ModelScript"
import { shellCommand } from "./shellCommand"

/** A function call as the model emits it: a tool the request offered, its JSON arguments. */
export interface ToolCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * The shell tools of the CLIs we drive, with how each takes its command. Codex's `exec_command` hands a command
 * still running after `yield_time_ms` (10 s by default) back to the model as a live session, which a script does not
 * poll: the longest wait Codex allows keeps a slow scripted command one tool call, as in the other CLIs.
 */
const SHELLS: ReadonlyArray<readonly [string, (command: string) => Record<string, unknown>]> = [
  ["exec_command", (cmd) => ({ cmd, yield_time_ms: 300_000 })],
  ["bash", (command) => ({ command })],
  ["shell_command", (command) => ({ command })],
  ["shell", (command) => ({ command: ["bash", "-lc", command] })]
]

/**
 * Picks the tool call for an action among the tools the request offered: Pi's own `write` and `edit` when it
 * has them, otherwise the action as a command for whichever shell tool is offered (Codex `exec_command {cmd}`,
 * Pi `bash {command}`). A request that offers no known shell still gets `exec_command`, which shows in its log.
 */
export const toolCall = (action: Exclude<Action, { _tag: "Say" }>, offered: ReadonlyArray<string>): ToolCall => {
  if (action._tag === "Write" && offered.includes("write")) {
    return { name: "write", arguments: { path: action.path, content: action.content } }
  }
  if (action._tag === "Edit" && offered.includes("edit")) {
    return { name: "edit", arguments: { path: action.path, edits: [{ oldText: action.oldText, newText: action.newText }] } }
  }
  const [name, args] = SHELLS.find(([tool]) => offered.includes(tool)) ?? SHELLS[0]!
  return { name, arguments: args(shellCommand(action)) }
}
