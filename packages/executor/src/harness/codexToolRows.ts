import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { obj, str } from "./jsonLine"
import { toolCallText } from "./toolCallText"
import { truncate } from "./truncate"

/** Announces a tool call once per item id (an item is seen started, updated and completed). */
type AnnounceCall = (tool: string, text: string) => ReadonlyArray<TranscriptEntry>

/** The call announcer of one item: its first call row, then nothing for the same item id. */
export const announceOnce = (announced: Set<string>, id: string, at: number): AnnounceCall => (tool, text) => {
  if (announced.has(id)) return []
  announced.add(id)
  return [{ kind: "tool_call", tool, text, at }]
}

/** The rows of one shell command item, in either of Codex's streams (`exec --json` or the app-server's). */
export const commandRows = (
  call: AnnounceCall,
  completed: boolean,
  command: { readonly command: unknown; readonly exitCode: unknown; readonly output: string | undefined },
  at: number
): ReadonlyArray<TranscriptEntry> => {
  const rows = call("shell", toolCallText({ command: command.command }))
  if (!completed) return rows
  const suffix = typeof command.exitCode === "number" && command.exitCode !== 0 ? `\n[exit code ${command.exitCode}]` : ""
  return [...rows, { kind: "tool_result", tool: "shell", text: `${truncate(command.output ?? "")}${suffix}`, at }]
}

/** The rows of one file-change item: each change as `<kind> <path>`, and a result row only when the patch failed. */
export const fileChangeRows = (
  call: AnnounceCall,
  completed: boolean,
  changes: ReadonlyArray<string>,
  failed: boolean,
  at: number
): ReadonlyArray<TranscriptEntry> => {
  if (!completed) return []
  const rows = call("apply_patch", truncate(changes.join("\n")))
  return failed ? [...rows, { kind: "tool_result", tool: "apply_patch", text: "patch failed", at }] : rows
}

/** The rows of one MCP tool call item (`server`, `tool`, `arguments`, then `result` or `error`). */
export const mcpToolRows = (
  call: AnnounceCall,
  completed: boolean,
  it: Readonly<Record<string, unknown>>,
  at: number
): ReadonlyArray<TranscriptEntry> => {
  const tool = `${str(it["server"]) ?? "mcp"}.${str(it["tool"]) ?? "?"}`
  const rows = call(tool, toolCallText(it["arguments"] ?? {}))
  if (!completed) return rows
  const failed = str(obj(it["error"])["message"])
  const text = failed ?? toolCallText(it["result"] ?? "")
  return [...rows, { kind: "tool_result", tool, text: failed === undefined ? text : `error: ${text}`, at }]
}
