import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

/** What an Attempt's folder on a Worker says about how far the executor got. */
export interface AttemptFolder {
  /** The Attempt id the folder is named after (`<runId>/<step>/<n>`). */
  readonly attemptId: string
  readonly journal: ReadonlyArray<string>
  /** A turn's session started and wrote no exit status yet. */
  readonly agentRunning: boolean
  readonly verifyPassed: boolean
}

const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return undefined
  }
}

/** Reads every Attempt folder under a local Worker root (`<root>/attempts/<runId>_<step>_<n>`). */
export const attemptFolders = (root: string): ReadonlyArray<AttemptFolder> => {
  const attempts = join(root, "attempts")
  if (!existsSync(attempts)) return []
  return readdirSync(attempts).flatMap((name) => {
    const match = /^([0-9a-f]{32})_(.+)_(\d+)$/.exec(name)
    if (match === null) return []
    const dir = join(attempts, name)
    const entries = readJson(join(dir, "journal.json"))
    const journal = Array.isArray(entries) ? entries.map((e) => String((e as { _tag?: unknown })._tag)) : []
    // The daemon removes a released folder at any moment: one gone between the two listings is skipped.
    let names: Array<string>
    try {
      names = readdirSync(dir)
    } catch {
      return []
    }
    const turns = names.filter((n) => /^turn-\d+$/.test(n))
    const agentRunning = turns.some((turn) => existsSync(join(dir, turn, "session.json")) && !existsSync(join(dir, turn, "exit")))
    const verifyPassed = Array.isArray(entries) &&
      entries.some((e) => (e as { _tag?: unknown })._tag === "verify" && ((e as { results?: Array<{ passed?: boolean }> }).results ?? []).every((r) => r.passed === true))
    return [{ attemptId: `${match[1]}/${match[2]}/${match[3]}`, journal, agentRunning, verifyPassed }]
  })
}

/**
 * The lifecycle phase one open Attempt was in, from its journal (read after the kill, so frozen at the kill): the
 * daemon writes each step there before it acts on the next.
 */
export const attemptPhase = (folder: AttemptFolder | undefined): string => {
  if (folder === undefined || !folder.journal.includes("begin")) return "preparing the workspace"
  const last = folder.journal[folder.journal.length - 1]
  if (folder.journal.includes("outcome")) return "outcome journaled, not in the ledger"
  if (last === "turn") return "agent running"
  if (last === "turnEnd") return "verifying"
  if (last === "verify" && folder.verifyPassed) return "harvest (push, pull request)"
  return `after ${last}`
}
