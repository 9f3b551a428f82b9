import type { DiffFileStat } from "@usine/core/attempt/DiffSummary"

const count = (field: string): number | undefined => (/^\d+$/.test(field) ? Number(field) : undefined)

/**
 * Reads `git diff --numstat -z`: `<added>\t<deleted>\t<path>\0` per file, and for a rename or copy an empty path
 * followed by `<old path>\0<new path>\0`. Paths are raw (no quoting), so tabs, spaces and newlines in them are
 * kept; a binary file shows `-` for both counts. A record that does not have this shape ends the reading.
 */
export const parseNumstat = (output: string): ReadonlyArray<DiffFileStat> => {
  const fields = output.split("\0")
  const files: Array<DiffFileStat> = []
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string
    if (field === "" && i === fields.length - 1) break
    const firstTab = field.indexOf("\t")
    const secondTab = field.indexOf("\t", firstTab + 1)
    if (firstTab < 0 || secondTab < 0) break
    const added = field.slice(0, firstTab)
    const deleted = field.slice(firstTab + 1, secondTab)
    const binary = added === "-" && deleted === "-"
    const insertions = binary ? 0 : count(added)
    const deletions = binary ? 0 : count(deleted)
    if (insertions === undefined || deletions === undefined) break
    const path = field.slice(secondTab + 1)
    if (path !== "") {
      files.push({ path, insertions, deletions, binary })
      continue
    }
    const oldPath = fields[i + 1]
    const newPath = fields[i + 2]
    if (oldPath === undefined || newPath === undefined || i + 2 === fields.length - 1) break
    files.push({ path: newPath, oldPath, insertions, deletions, binary })
    i += 2
  }
  return files
}
