/** One line of a hunk: added, removed, context, or git's `\ No newline at end of file` note. */
interface PatchLine {
  readonly kind: "add" | "del" | "ctx" | "note"
  readonly text: string
  readonly oldNumber?: number | undefined
  readonly newNumber?: number | undefined
}

export interface PatchHunk {
  /** `@@ -1,3 +1,4 @@ function name` as git wrote it. */
  readonly header: string
  readonly lines: ReadonlyArray<PatchLine>
}

/** One file of a unified git diff, as the Run page and the review gate show it. */
export interface PatchFile {
  readonly path: string
  /** The path before a rename or copy; absent otherwise. */
  readonly oldPath?: string | undefined
  readonly status: "added" | "deleted" | "renamed" | "modified"
  readonly binary: boolean
  readonly insertions: number
  readonly deletions: number
  readonly hunks: ReadonlyArray<PatchHunk>
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/

/** git quotes a path with unusual bytes in C style; this reads back what the Board can show. */
const unquote = (path: string): string =>
  path.startsWith('"') && path.endsWith('"')
    ? path.slice(1, -1).replace(/\\(["\\tn])/g, (_, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c))
    : path

const stripPrefix = (path: string): string => unquote(path).replace(/^[ab]\//, "")

interface Building {
  path: string
  oldPath: string | undefined
  status: PatchFile["status"]
  binary: boolean
  insertions: number
  deletions: number
  hunks: Array<{ header: string; lines: Array<PatchLine> }>
}

const finish = (file: Building): PatchFile => ({
  path: file.path,
  ...(file.oldPath === undefined || file.oldPath === file.path ? {} : { oldPath: file.oldPath }),
  status: file.status === "modified" && file.oldPath !== undefined && file.oldPath !== file.path ? "renamed" : file.status,
  binary: file.binary,
  insertions: file.insertions,
  deletions: file.deletions,
  hunks: file.hunks
})

/**
 * The files of a unified diff as `git diff` writes it (`diff --git` headers, hunks, binary and rename lines). A
 * patch cut at its bound ends mid-file: that file keeps the lines read so far.
 */
export const patchFiles = (patch: string): ReadonlyArray<PatchFile> => {
  const files: Array<PatchFile> = []
  let file: Building | undefined
  let oldNumber = 0
  let newNumber = 0
  let inHunk = false
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ")) {
      if (file !== undefined) files.push(finish(file))
      const names = /^diff --git (\S+|"[^"]*") (\S+|"[^"]*")$/.exec(line)
      const path = stripPrefix(names?.[2] ?? line.slice(11))
      file = { path, oldPath: names?.[1] === undefined ? undefined : stripPrefix(names[1]), status: "modified", binary: false, insertions: 0, deletions: 0, hunks: [] }
      inHunk = false
      continue
    }
    if (file === undefined) continue
    const hunk = HUNK.exec(line)
    if (hunk !== null) {
      oldNumber = Number(hunk[1])
      newNumber = Number(hunk[2])
      file.hunks.push({ header: line, lines: [] })
      inHunk = true
      continue
    }
    const current = file.hunks.at(-1)
    if (inHunk && current !== undefined) {
      if (line.startsWith("+")) {
        current.lines.push({ kind: "add", text: line.slice(1), newNumber: newNumber++ })
        file.insertions++
        continue
      }
      if (line.startsWith("-")) {
        current.lines.push({ kind: "del", text: line.slice(1), oldNumber: oldNumber++ })
        file.deletions++
        continue
      }
      if (line.startsWith(" ")) {
        current.lines.push({ kind: "ctx", text: line.slice(1), oldNumber: oldNumber++, newNumber: newNumber++ })
        continue
      }
      if (line.startsWith("\\")) {
        current.lines.push({ kind: "note", text: line })
        continue
      }
    }
    inHunk = false
    if (line.startsWith("new file mode")) file.status = "added"
    else if (line.startsWith("deleted file mode")) file.status = "deleted"
    else if (line.startsWith("rename from ") || line.startsWith("copy from ")) file.oldPath = unquote(line.replace(/^(rename|copy) from /, ""))
    else if (line.startsWith("rename to ") || line.startsWith("copy to ")) file.path = unquote(line.replace(/^(rename|copy) to /, ""))
    else if (line.startsWith("Binary files ") || line === "GIT binary patch") file.binary = true
    else if (line.startsWith("+++ ") && line !== "+++ /dev/null") file.path = stripPrefix(line.slice(4))
    else if (line.startsWith("--- ") && line !== "--- /dev/null" && file.status !== "added") file.oldPath = stripPrefix(line.slice(4))
  }
  if (file !== undefined) files.push(finish(file))
  return files
}
