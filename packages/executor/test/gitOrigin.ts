import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export const git = (cwd: string, ...args: Array<string>): string =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.invalid"
    }
  }).trim()

interface Origin {
  /** The bare repository clients fetch from. */
  readonly bare: string
  /** A clone to make new commits in. */
  readonly work: string
  /** Commits a file on `branch` and pushes it; returns the new sha. */
  readonly commit: (branch: string, file: string, content: string) => string
}

/** A bare origin with `main` (README "main"), `feature`, and `refs/pull/7/head` like GitHub's. */
export const makeOrigin = (dir: string): Effect.Effect<Origin> =>
  Effect.sync(() => {
    const bare = path.join(dir, "origin.git")
    const work = path.join(dir, "origin-work")
    git(dir, "init", "--quiet", "--bare", "--initial-branch=main", bare)
    git(dir, "init", "--quiet", "--initial-branch=main", work)
    git(work, "remote", "add", "origin", bare)
    const commit = (branch: string, file: string, content: string) => {
      git(work, "checkout", "--quiet", "-B", branch)
      fs.writeFileSync(path.join(work, file), content)
      git(work, "add", file)
      git(work, "commit", "--quiet", "-m", `${branch}: ${file}`)
      git(work, "push", "--quiet", "origin", `HEAD:refs/heads/${branch}`)
      return git(work, "rev-parse", "HEAD")
    }
    commit("main", "README", "main\n")
    const pr = commit("pr-7", "README", "pull request 7\n")
    git(bare, "update-ref", "refs/pull/7/head", pr)
    git(bare, "update-ref", "-d", "refs/heads/pr-7")
    git(work, "checkout", "--quiet", "main")
    return { bare, work, commit }
  })
