import { isAbsolute, join } from "node:path"
import type { Action } from "../ModelScript"
import { shellCommand } from "./shellCommand"
import { type ToolCall, toolCall } from "./toolCall"

/** A path as Claude Code's file tools take it: absolute, against the session's working directory when known. */
const absolute = (path: string, workdir: string | undefined): string =>
  isAbsolute(path) || workdir === undefined ? path : join(workdir, path)

/**
 * The `tool_use` blocks of one Messages API turn, in Claude Code's tool names when the request offers them: `Bash
 * {command, description}`, `Write {file_path, content}`, and for an edit `Read` then `Edit {file_path, old_string,
 * new_string}` in one message, since Claude Code refuses to edit a file it has not read in the session. File paths are
 * made absolute against `workdir` (Claude Code's tools require it). A request without them gets the OpenAI mapping.
 */
export const claudeToolUses = (
  action: Exclude<Action, { _tag: "Say" }>,
  offered: ReadonlyArray<string>,
  workdir: string | undefined
): ReadonlyArray<ToolCall> => {
  if (!offered.includes("Bash")) return [toolCall(action, offered)]
  switch (action._tag) {
    case "Run":
      return [{ name: "Bash", arguments: { command: action.command, description: "Run a command" } }]
    case "Write": {
      if (!offered.includes("Write")) break
      return [{ name: "Write", arguments: { file_path: absolute(action.path, workdir), content: action.content } }]
    }
    case "Edit": {
      if (!offered.includes("Edit") || !offered.includes("Read")) break
      const file_path = absolute(action.path, workdir)
      return [
        { name: "Read", arguments: { file_path } },
        { name: "Edit", arguments: { file_path, old_string: action.oldText, new_string: action.newText } }
      ]
    }
  }
  return [{ name: "Bash", arguments: { command: shellCommand(action), description: "Change a file" } }]
}
