import { readdirSync, readFileSync } from "node:fs"
import { basename, join, relative, sep } from "node:path"

/** GitHub's classic personal, fine-grained personal and installation token prefixes, and what follows them. */
const TOKEN = /(?:ghp_|github_pat_|ghs_)[A-Za-z0-9_]*/g

/** One token-like string in an archived file; `masked` hides its middle so the report leaks nothing itself. */
interface TokenFound {
  readonly file: string
  readonly line: number
  readonly masked: string
}

interface TestLogsScan {
  readonly files: number
  /** Processes whose stdout says a daemon came up (`usine is up as`). */
  readonly daemons: number
  /** Archived `usine.log` files: one for each folder daemons logged in. */
  readonly daemonLogs: number
  /** Archive folders where a daemon came up and no `usine.log` was archived: the copying missed its log. */
  readonly missingLogs: ReadonlyArray<string>
  readonly found: ReadonlyArray<TokenFound>
}

const DAEMON_UP = "usine is up as "

/** `ghp_sim0123…cdef` → `ghp_sim*************ef`: the prefix and three characters, then only the last two. */
export const maskToken = (token: string): string => {
  const prefix = /^(?:ghp_|github_pat_|ghs_)/.exec(token)?.[0] ?? ""
  const rest = token.slice(prefix.length)
  if (rest.length < 8) return `${prefix}${"*".repeat(rest.length)}`
  return `${prefix}${rest.slice(0, 3)}${"*".repeat(rest.length - 5)}${rest.slice(-2)}`
}

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : []
  })

/** Reads every file of the archive `dir` (none when it does not exist) for GitHub token prefixes, case-sensitive. */
export const scanTestLogs = (dir: string): TestLogsScan => {
  let files: ReadonlyArray<string> = []
  try {
    files = [...filesUnder(dir)].sort()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
  const found: Array<TokenFound> = []
  const daemonsIn = new Map<string, number>()
  const logged = new Set<string>()
  for (const file of files) {
    const name = relative(dir, file)
    const folder = name.split(sep)[0] ?? name
    const text = readFileSync(file, "utf8")
    text.split("\n").forEach((line, index) => {
      for (const match of line.matchAll(TOKEN)) found.push({ file: name, line: index + 1, masked: maskToken(match[0]) })
    })
    if (basename(file) === "usine.log") logged.add(folder)
    if (/^process-\d+\.stdout$/.test(basename(file)) && text.includes(DAEMON_UP)) {
      daemonsIn.set(folder, (daemonsIn.get(folder) ?? 0) + 1)
    }
  }
  return {
    files: files.length,
    daemons: [...daemonsIn.values()].reduce((sum, n) => sum + n, 0),
    daemonLogs: files.filter((file) => basename(file) === "usine.log").length,
    missingLogs: [...daemonsIn.keys()].filter((folder) => !logged.has(folder)),
    found
  }
}

/**
 * Why the scan fails the run: a token found; in the full run (a minimum given) also an archive too small to prove
 * anything, fewer daemons than the suite starts, or a daemon whose log was not archived, so the scan cannot pass by
 * reading nothing.
 */
export const scanProblems = (scan: TestLogsScan, minimumDaemons: number): ReadonlyArray<string> => [
  ...scan.found.map((f) => `${f.file}:${f.line}: ${f.masked}`),
  ...(minimumDaemons === 0 ? [] : [
    ...(scan.files === 0 ? ["the archive is empty: no process output or log was archived"] : []),
    ...(scan.daemons < minimumDaemons
      ? [`only ${scan.daemons} daemons came up in the archived output, fewer than the ${minimumDaemons} a full run starts`]
      : []),
    ...scan.missingLogs.map((folder) => `${folder}: a daemon came up there but no usine.log was archived`)
  ])
]
