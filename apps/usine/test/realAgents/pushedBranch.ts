import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect } from "effect"
import { scopedDir } from "../support/scopedSim"

// Never a synchronous child here: the emulator answering git runs in this very process.
const run = promisify(execFile)

/**
 * A branch as the daemon pushed it, cloned from the emulator with real git for the scope: its files, and the sample
 * project's own test run on it (which fails when the suite does).
 */
export const pushedBranch = (cloneUrl: string, branch: string) =>
  Effect.gen(function* () {
    const dir = join(yield* scopedDir, "clone")
    yield* Effect.promise(() => run("git", ["clone", "--quiet", "--depth", "1", "--branch", branch, cloneUrl, dir]))
    return {
      read: (path: string) => readFileSync(join(dir, path), "utf8"),
      /** The project's `node --test` output. */
      test: Effect.promise(() => run(process.execPath, ["--test"], { cwd: dir, encoding: "utf8" })).pipe(Effect.map((r) => r.stdout))
    }
  })
