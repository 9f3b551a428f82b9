import type { Action } from "../ModelScript"

/** Quotes a string as one POSIX shell word. */
const shellWord = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`

const EDIT_SCRIPT = [
  `const fs = require("node:fs")`,
  `const [path, oldText, newText] = process.argv.slice(1)`,
  `const text = fs.readFileSync(path, "utf8")`,
  `if (!text.includes(oldText)) { console.error("edit: text not found in " + path); process.exit(1) }`,
  `fs.writeFileSync(path, text.replace(oldText, () => newText))`
].join("; ")

/**
 * A file action as one shell command, for a CLI whose only tool is a shell (Codex): `write` through `printf`,
 * `edit` through a `node -e` exact replacement (the CLIs run on Node, so `node` is on their PATH).
 */
export const shellCommand = (action: Exclude<Action, { _tag: "Say" }>): string => {
  switch (action._tag) {
    case "Run":
      return action.command
    case "Write": {
      const slash = action.path.lastIndexOf("/")
      const mkdir = slash > 0 ? `mkdir -p ${shellWord(action.path.slice(0, slash))} && ` : ""
      return `${mkdir}printf '%s' ${shellWord(action.content)} > ${shellWord(action.path)}`
    }
    case "Edit":
      return `node -e ${shellWord(EDIT_SCRIPT)} ${[action.path, action.oldText, action.newText].map(shellWord).join(" ")}`
  }
}
