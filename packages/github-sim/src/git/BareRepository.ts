import { mkdir, rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { runGit } from "./runGit"

/** Where the bare repository of `owner/name` lives under the emulator's data directory. */
export const bareRepositoryPath = (dataDir: string, owner: string, name: string): string =>
  join(dataDir, "git", owner.toLowerCase(), `${name.toLowerCase()}.git`)

/** Creates an empty bare repository that accepts pushes over smart HTTP. */
export const initBare = Effect.fn("BareRepository.init")(function* (gitDir: string, defaultBranch: string) {
  yield* Effect.promise(() => mkdir(dirname(gitDir), { recursive: true }))
  yield* runGit(["init", "--quiet", "--bare", `--initial-branch=${defaultBranch}`, gitDir])
  yield* runGit(["--git-dir", gitDir, "config", "http.receivepack", "true"])
})

/** Identity and date of a commit the emulator makes itself. */
interface CommitIdentity {
  readonly name: string
  readonly email: string
  readonly at: number
}

const identityEnv = (who: CommitIdentity): Record<string, string> => {
  const date = `@${Math.floor(who.at / 1000)} +0000`
  return {
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: date
  }
}

/**
 * Commits every file of `directory` (its own `.git` excluded, as git always does) onto `branch`,
 * on top of the branch's current commit if it has one. Returns the new commit's sha.
 */
export const commitDirectory = Effect.fn("BareRepository.commitDirectory")(function* (
  gitDir: string,
  directory: string,
  branch: string,
  message: string,
  who: CommitIdentity
) {
  const index = join(gitDir, `usine-seed-${who.at}.index`)
  const env = { ...identityEnv(who), GIT_INDEX_FILE: index }
  const git = (args: ReadonlyArray<string>) => runGit(["--git-dir", gitDir, "--work-tree", directory, ...args], { env })
  return yield* Effect.gen(function* () {
    yield* git(["add", "--all", "--force", "."])
    const tree = (yield* git(["write-tree"])).trim()
    const parent = yield* branchSha(gitDir, branch)
    const commit = (yield* git(["commit-tree", tree, "-m", message, ...(parent === undefined ? [] : ["-p", parent])])).trim()
    yield* git(["update-ref", `refs/heads/${branch}`, commit])
    return commit
  }).pipe(Effect.ensuring(Effect.promise(() => rm(index, { force: true }))))
})

/** Every branch and the sha it points at. */
export const listBranches = Effect.fn("BareRepository.listBranches")(function* (gitDir: string) {
  const out = yield* runGit(["--git-dir", gitDir, "for-each-ref", "--format=%(objectname) %(refname:strip=2)", "refs/heads"])
  const branches = new Map<string, string>()
  for (const line of out.split("\n")) {
    const space = line.indexOf(" ")
    if (space > 0) branches.set(line.slice(space + 1), line.slice(0, space))
  }
  return branches
})

/** The sha `branch` points at, if the branch exists. */
export const branchSha = (gitDir: string, branch: string) =>
  Effect.map(listBranches(gitDir), (branches) => branches.get(branch))

/** Moves `branch` to `sha` when that is a fast-forward; answers whether it moved. */
export const fastForward = Effect.fn("BareRepository.fastForward")(function* (gitDir: string, branch: string, sha: string) {
  const current = yield* branchSha(gitDir, branch)
  if (current === undefined) return false
  const isAncestor = yield* runGit(["--git-dir", gitDir, "merge-base", "--is-ancestor", current, sha]).pipe(
    Effect.as(true),
    Effect.catchTag("GitCommandFailed", (failure) => (failure.exitCode === 1 ? Effect.succeed(false) : Effect.fail(failure)))
  )
  if (!isAncestor) return false
  yield* runGit(["--git-dir", gitDir, "update-ref", `refs/heads/${branch}`, sha, current])
  return true
})
