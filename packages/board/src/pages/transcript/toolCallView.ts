/** A line of an edit's body: removed, added, or a note that lines were left out. */
interface EditLine {
  readonly sign: "-" | "+" | "…"
  readonly text: string
}

/** What a tool call row shows: a command line, a file edit with a short diff-like body, or the tool's arguments. */
type ToolCallView =
  | { readonly _tag: "Command"; readonly command: string }
  | { readonly _tag: "Edit"; readonly verb: string; readonly path: string; readonly lines: ReadonlyArray<EditLine> }
  | { readonly _tag: "Other"; readonly text: string }

/** Each side of an edit shows at most this many lines. */
const EDIT_LINES = 12

const SHELL = new Set(["bash", "shell", "exec_command", "exec", "local_shell", "run_shell_command"])

const record = (text: string): Readonly<Record<string, unknown>> | undefined => {
  if (!text.startsWith("{")) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value as Record<string, unknown> : undefined
  } catch {
    return undefined // cut by the executor's truncation: shown as it is
  }
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const side = (sign: "-" | "+", body: string | undefined): ReadonlyArray<EditLine> => {
  if (body === undefined || body === "") return []
  const lines = body.replace(/\n$/, "").split("\n")
  const shown = lines.slice(0, EDIT_LINES).map((line) => ({ sign, text: line }))
  return lines.length > EDIT_LINES ? [...shown, { sign: "…", text: `${lines.length - EDIT_LINES} more lines` }] : shown
}

const replacements = (args: Readonly<Record<string, unknown>>): ReadonlyArray<EditLine> => {
  const edits = Array.isArray(args["edits"]) ? args["edits"] : [args]
  return edits.flatMap((raw: unknown) => {
    const edit = raw !== null && typeof raw === "object" ? raw as Record<string, unknown> : {}
    return [
      ...side("-", text(edit["oldText"] ?? edit["old_string"])),
      ...side("+", text(edit["newText"] ?? edit["new_string"]))
    ]
  })
}

/**
 * Reads a tool call row as the parsers write it (`toolCallText`: the command for shell tools, else the arguments as
 * JSON; Codex's `apply_patch` as `<kind> <path>` lines). Pi's and Claude Code's write and edit tools show their path
 * and their lines; anything else, or arguments cut short, shows as written.
 */
export const toolCallView = (tool: string | undefined, body: string): ToolCallView => {
  const name = (tool ?? "").toLowerCase()
  if (SHELL.has(name)) return { _tag: "Command", command: body }
  if (name === "apply_patch") return { _tag: "Edit", verb: "patch", path: body.split("\n").join(", "), lines: [] }
  const args = record(body)
  const path = args === undefined ? undefined : text(args["path"] ?? args["file_path"])
  if (args === undefined || path === undefined) return { _tag: "Other", text: body }
  if (name === "write") return { _tag: "Edit", verb: "write", path, lines: side("+", text(args["content"])) }
  if (name === "edit" || name === "multiedit") return { _tag: "Edit", verb: "edit", path, lines: replacements(args) }
  return { _tag: "Other", text: body }
}
