import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, inject } from "vitest"

/** The daemon's log and its rotations; an Attempt's `stderr.log`, `stream.jsonl` transcript and `journal.json`. */
const LOG_FILE = /\.log(\.\d+)?$|\.jsonl$|^journal\.json$/
/** Git data and the agent's checkout (large, never a log of ours), and the tokens lent to git (a token by design). */
const SKIPPED = new Set([".git", "worktree", "mirrors", "node_modules", "credentials"])
const TESTS = fileURLToPath(new URL("..", import.meta.url))

const logFilesUnder = (dir: string): ReadonlyArray<string> => {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : logFilesUnder(path)
      return entry.isFile() && LOG_FILE.test(entry.name) ? [path] : []
    })
  } catch {
    return [] // A folder an agent or a finalizer removed meanwhile.
  }
}

/** One archive folder per (test file, process folder): a later process in the same folder refreshes its copies. */
const folders = new Map<string, string>()
let processes = 0

const archiveFolder = (archive: string, cwd: string): string => {
  const testPath = expect.getState().testPath
  const testFile = testPath === undefined ? "outside-a-test" : relative(TESTS, testPath).replaceAll("/", "-")
  const key = `${testFile}\0${cwd}`
  const known = folders.get(key)
  if (known !== undefined) return known
  for (let n = folders.size + 1; ; n++) {
    const folder = join(archive, `${testFile}-${n}`)
    try {
      mkdirSync(folder)
      folders.set(key, folder)
      return folder
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

/**
 * Copies what a process started in `cwd` printed, and every log file under `cwd` (the daemon's `<state>/logs/*`,
 * each Attempt's `stderr.log`, `stream.jsonl` and journal), into the run's archive, where `scanTestLogs` reads them after the
 * run. Called when the process has ended and before its folder is removed; it never fails the test. Outside a run
 * of the @usine/app project (no archive provided) it does nothing.
 */
export const archiveProcessLogs = (started: { readonly cwd: string; readonly stdout: string; readonly stderr: string }) => {
  const archive: string | undefined = inject("usineTestLogs")
  if (archive === undefined) return
  try {
    const folder = archiveFolder(archive, started.cwd)
    const n = ++processes
    writeFileSync(join(folder, `process-${n}.stdout`), started.stdout)
    writeFileSync(join(folder, `process-${n}.stderr`), started.stderr)
    for (const file of logFilesUnder(started.cwd)) {
      const target = join(folder, "files", relative(started.cwd, file))
      mkdirSync(dirname(target), { recursive: true })
      try {
        copyFileSync(file, target)
      } catch {
        // Removed between the listing and the copy.
      }
    }
  } catch (error) {
    console.warn(`archiving the logs of the process in ${started.cwd} failed: ${String(error)}`)
  }
}
