import { truncate } from "./truncate"

/**
 * The text of a tool call row: the shell command when the tool runs one (`command` for Pi and Claude's Bash,
 * `cmd` for Codex's exec_command), otherwise the arguments as JSON.
 */
export const toolCallText = (args: unknown): string => {
  if (typeof args === "string") return truncate(args)
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const record = args as Record<string, unknown>
    const command = record["command"] ?? record["cmd"]
    if (typeof command === "string") return truncate(command)
    if (Array.isArray(command) && command.every((part) => typeof part === "string")) return truncate(command.join(" "))
  }
  return truncate(JSON.stringify(args) ?? "")
}
