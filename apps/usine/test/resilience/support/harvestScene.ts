import { execFileSync } from "node:child_process"
import { Effect } from "effect"
import { bareRepositoryPath } from "@usine/github-sim/git/BareRepository"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { queryLedger } from "./LedgerSnapshot"
import type { ResilienceWorld } from "./ResilienceWorld"

/** One Item's Run as the ledger, the emulator's repository and its request log show it at one moment. */
export interface HarvestScene {
  readonly runId: string | undefined
  readonly state: string | undefined
  readonly attempts: number
  /** The open Attempt, or the last one, and what it recorded before its push (migration 0014). */
  readonly outcome: string | undefined
  readonly pushBranch: string | undefined
  readonly pushSha: string | undefined
  /** The branch's commit on the emulator, if the branch exists. */
  readonly branchSha: string | undefined
  /** Pull requests (any state) from the branch. */
  readonly pulls: ReadonlyArray<{ readonly number: number; readonly state: string }>
  readonly log: ReadonlyArray<LoggedRequest>
}

const text = (value: unknown): string | undefined => (value === null || value === undefined ? undefined : String(value))

/** The branch's commit in the emulator's bare repository, read on disk: no request of the daemon's account. */
const branchShaOn = (world: ResilienceWorld, branch: string): string | undefined => {
  const gitDir = bareRepositoryPath(world.sim.dataDir, "acme", "widgets")
  const line = execFileSync("git", ["--git-dir", gitDir, "for-each-ref", "--format=%(objectname)", `refs/heads/${branch}`], { encoding: "utf8" }).trim()
  return line === "" ? undefined : line
}

/** Reads the scene of issue `number`'s Run in `ledgerFile`. */
export const harvestScene = (world: ResilienceWorld, ledgerFile: string, number: number): Effect.Effect<HarvestScene> =>
  Effect.gen(function* () {
    const run = queryLedger(ledgerFile, "SELECT id, state FROM usine_runs WHERE number = ? ORDER BY created_at DESC LIMIT 1", number)[0]
    const runId = text(run?.["id"])
    const attempts = runId === undefined
      ? []
      : queryLedger(ledgerFile, "SELECT outcome_json, push_branch, push_sha FROM usine_attempts WHERE run_id = ? ORDER BY number", runId)
    const last = attempts[attempts.length - 1]
    const pushBranch = text(last?.["push_branch"])
    const pulls = pushBranch === undefined ? [] : (yield* world.pulls).filter((p) => p.head === pushBranch)
    return {
      runId,
      state: text(run?.["state"]),
      attempts: attempts.length,
      outcome: text(last?.["outcome_json"]),
      pushBranch,
      pushSha: text(last?.["push_sha"]),
      branchSha: pushBranch === undefined ? undefined : branchShaOn(world, pushBranch),
      pulls: pulls.map((p) => ({ number: p.number, state: p.state })),
      log: yield* world.botRequests
    }
  })
