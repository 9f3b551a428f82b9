import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { runGit } from "@usine/github-sim/git/runGit"
import { REPOSITORY, SimAccount } from "./SimGitHub"
import { tempDir } from "./TestLedger"

const identity = ["-c", "user.name=Alice", "-c", "user.email=alice@example.com"]

/** Pushes a branch with one commit through the emulator's git over HTTP and opens its pull request (as `author`). */
export const openPullRequest = (branch: string, title: string, author?: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      const account = yield* SimAccount
      const clone = join(yield* tempDir, "clone")
      yield* runGit(["clone", "-q", sim.authenticatedCloneUrl(REPOSITORY, account.token), clone])
      yield* runGit(["-C", clone, "checkout", "-q", "-b", branch])
      yield* Effect.promise(() => writeFile(join(clone, `${branch.replace(/\W/g, "-")}.txt`), `${title}\n`))
      yield* runGit(["-C", clone, "add", "-A"])
      yield* runGit(["-C", clone, ...identity, "commit", "-q", "-m", title])
      yield* runGit(["-C", clone, "push", "-q", "origin", branch])
      return yield* sim.control.createPullRequest({ repo: REPOSITORY, title, head: branch, ...(author === undefined ? {} : { author }) })
    })
  ).pipe(Effect.orDie)
