import { type AttemptFolder, attemptPhase } from "./attemptFolders"
import type { EmulatedPull } from "./checkInvariants"
import type { LedgerSnapshot } from "./LedgerSnapshot"

interface KillScene {
  /** The ledger, Attempt folders and pull requests read right after the daemon died: frozen at the kill. */
  readonly ledger: LedgerSnapshot
  readonly folders: ReadonlyArray<AttemptFolder>
  readonly pulls: ReadonlyArray<EmulatedPull>
  /** `POST /pulls` requests the emulator answered after the daemon died: they were in flight at the kill. */
  readonly pullPostsAfterKill: number
  /** Issue numbers whose labels match a Loop at the kill. */
  readonly matching: ReadonlyArray<number>
}

/**
 * Where the kill actually landed, from what the dead daemon left: one phase per open Attempt (from its journal and
 * from GitHub), or, with none open, whether a matching Item was observed without its Event or a Run was claimed
 * without an Attempt. Several Attempts can be in flight at once, so a kill can land in several phases.
 */
export const classifyKill = (scene: KillScene): ReadonlyArray<string> => {
  const { ledger } = scene
  const runs = new Map(ledger.runs.map((r) => [r.id, r]))
  const folders = new Map(scene.folders.map((f) => [f.attemptId, f]))
  const open = ledger.attempts.filter((a) => a.outcome === undefined)
  const phases = open.map((attempt) => {
    const phase = attemptPhase(folders.get(attempt.id))
    if (phase !== "harvest (push, pull request)" && phase !== "outcome journaled, not in the ledger") return phase
    const run = runs.get(attempt.runId)
    const branch = run === undefined ? "" : `usine/${run.loop}/${run.number}-${run.id.slice(0, 8)}`
    if (scene.pulls.some((p) => p.head === branch)) return "pull request created, not recorded"
    if (scene.pullPostsAfterKill > 0) return "pull request request in flight"
    return phase === "outcome journaled, not in the ledger" ? phase : "pushing"
  })
  if (phases.length > 0) return phases

  const events = new Set(ledger.events.map((e) => `${e.itemKey} ${e.contentHash}`))
  const projections = new Map(ledger.projections.map((p) => [p.number, p]))
  const observedOnly = scene.matching.some((number) => {
    const projection = projections.get(number)
    return projection !== undefined && !events.has(`${projection.itemKey} ${projection.contentHash}`)
  })
  if (observedOnly) return ["observed, before recordAndClaim"]
  const claimedIdle = ledger.runs.some((r) => r.state === "Pending" || (r.state === "Running" && !open.some((a) => a.runId === r.id)))
  if (claimedIdle) return ["claimed, before an Attempt"]
  return ["polling, nothing in flight"]
}
