/** One added line of a diff, numbered as in the new file. */
export interface AddedLine {
  readonly line: number
  readonly text: string
}

/** One file of a unified diff; a rename or copy has both paths, an added file no old path, a deleted one no new path. */
export interface DiffFile {
  readonly oldPath: string | undefined
  readonly newPath: string | undefined
  readonly added: ReadonlyArray<AddedLine>
  readonly binary: boolean
}

interface Draft {
  headerOld: string | undefined
  headerNew: string | undefined
  oldPath: string | undefined
  newPath: string | undefined
  sawOld: boolean
  sawNew: boolean
  added: Array<AddedLine>
  binary: boolean
}

const draft = (): Draft => ({
  headerOld: undefined,
  headerNew: undefined,
  oldPath: undefined,
  newPath: undefined,
  sawOld: false,
  sawNew: false,
  added: [],
  binary: false
})

/** Git quotes a path with unusual bytes as a C string (`"caf\303\251"`); this reads it back as UTF-8. */
const unquote = (path: string): string => {
  if (!path.startsWith('"') || !path.endsWith('"') || path.length < 2) return path
  const bytes: Array<number> = []
  const body = path.slice(1, -1)
  const simple: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 }
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"))
      continue
    }
    const next = body[i + 1] ?? ""
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4))
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8))
      i += 3
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0))
      i += 1
    }
  }
  return Buffer.from(bytes).toString("utf8")
}

/** A `---`/`+++` path without its `a/`/`b/` prefix and timestamp; `/dev/null` is no path. */
const sidePath = (raw: string, prefix: "a/" | "b/"): string | undefined => {
  const path = unquote(raw.startsWith('"') ? raw.trimEnd() : raw.split("\t")[0]!.trimEnd())
  if (path === "/dev/null") return undefined
  return path.startsWith(prefix) ? path.slice(prefix.length) : path
}

/** Where the C string starting at `from` ends (the index of its closing quote). */
const closingQuote = (text: string, from: number): number => {
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === "\\") i += 1
    else if (text[i] === '"') return i
  }
  return text.length - 1
}

/** `diff --git a/x b/y`: quoted halves, or two equal halves, or a split at " b/" (renames also say `rename to`). */
const headerPaths = (rest: string): readonly [string | undefined, string | undefined] => {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest, 0)
    return [sidePath(rest.slice(0, end + 1), "a/"), sidePath(rest.slice(end + 2), "b/")]
  }
  if (rest.endsWith('"')) {
    const split = rest.lastIndexOf(' "')
    return [sidePath(rest.slice(0, split), "a/"), sidePath(rest.slice(split + 1), "b/")]
  }
  const half = (rest.length - 1) / 2
  if (Number.isInteger(half) && rest[half] === " " && rest.slice(2, half) === rest.slice(half + 3)) {
    return [sidePath(rest.slice(0, half), "a/"), sidePath(rest.slice(half + 1), "b/")]
  }
  const split = rest.indexOf(" b/")
  return split < 0 ? [undefined, undefined] : [sidePath(rest.slice(0, split), "a/"), sidePath(rest.slice(split + 1), "b/")]
}

const finish = (d: Draft): DiffFile => ({
  oldPath: d.sawOld ? d.oldPath : d.headerOld,
  newPath: d.sawNew ? d.newPath : d.headerNew,
  added: d.added,
  binary: d.binary
})

/**
 * Reads the files of a unified diff as git prints it (`git diff -M`, default `a/` and `b/` prefixes): their old and
 * new paths and their added lines. Hunk line counts decide where a hunk ends, so a removed line that starts with
 * `-- ` is never taken for a header.
 */
export const parseUnifiedDiff = (diff: string): ReadonlyArray<DiffFile> => {
  const files: Array<DiffFile> = []
  let current: Draft | undefined
  let oldLeft = 0
  let newLeft = 0
  let newLine = 0
  const start = (): Draft => {
    if (current !== undefined) files.push(finish(current))
    current = draft()
    return current
  }
  for (const line of diff.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      const mark = line[0]
      if (mark === "+") {
        current?.added.push({ line: newLine, text: line.slice(1) })
        newLine += 1
        newLeft -= 1
      } else if (mark === "-") {
        oldLeft -= 1
      } else if (mark === " " || line === "") {
        newLine += 1
        oldLeft -= 1
        newLeft -= 1
      }
      continue
    }
    if (line.startsWith("diff --git ")) {
      const d = start()
      ;[d.headerOld, d.headerNew] = headerPaths(line.slice("diff --git ".length))
    } else if (line.startsWith("--- ")) {
      const d = current === undefined || current.sawNew ? start() : current
      d.sawOld = true
      d.oldPath = sidePath(line.slice(4), "a/")
    } else if (line.startsWith("+++ ") && current !== undefined) {
      current.sawNew = true
      current.newPath = sidePath(line.slice(4), "b/")
    } else if (current !== undefined && /^(?:rename|copy) (?:from|to) /.test(line)) {
      const [, side, path] = /^(?:rename|copy) (from|to) (.*)$/.exec(line) ?? []
      if (side === "from") current.headerOld = unquote(path ?? "")
      else current.headerNew = unquote(path ?? "")
    } else if (current !== undefined && line.startsWith("new file mode")) {
      current.headerOld = undefined
    } else if (current !== undefined && line.startsWith("deleted file mode")) {
      current.headerNew = undefined
    } else if (current !== undefined && (line.startsWith("Binary files ") || line === "GIT binary patch")) {
      current.binary = true
    } else if (line.startsWith("@@")) {
      const hunk = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
      if (hunk !== null) {
        oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1])
        newLine = Number(hunk[2])
        newLeft = hunk[3] === undefined ? 1 : Number(hunk[3])
      }
    }
  }
  if (current !== undefined) files.push(finish(current))
  return files
}
