import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as LocalTransport from "../src/LocalTransport"
import * as Workspace from "../src/Workspace"
import { attemptGit, harvestRepoOf } from "../src/Harvest/attemptGit"
import { git, makeOrigin } from "./gitOrigin"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const transport = LocalTransport.make()
const repository = "acme/widgets"

/** Writes `text` as a blob, a tree holding it and a commit in `gitDir`; returns the blob and the commit. */
const plant = (gitDir: string, text: string) => {
  const run = (args: ReadonlyArray<string>, input?: string) =>
    execFileSync("git", [`--git-dir=${gitDir}`, ...args], {
      encoding: "utf8",
      ...(input === undefined ? {} : { input }),
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x.invalid" }
    }).trim()
  const blob = run(["hash-object", "-w", "--stdin"], text)
  const tree = run(["mktree"], `100644 blob ${blob}\tsecret.txt\n`)
  return { blob, commit: run(["commit-tree", tree, "-m", "held work"]) }
}

/** Every object the clone can read: its own and every repository it borrows from. */
const readable = (worktree: string) => new Set(git(worktree, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split("\n"))

const has = (gitDir: string, sha: string) => {
  try {
    execFileSync("git", [`--git-dir=${gitDir}`, "cat-file", "-e", sha], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** ADR 0083: an Attempt's clone borrows its own `start.git`, which holds the start's history and nothing else. */
describe("Workspace: an Attempt's start repository", () => {
  it.scopedLive("holds the base's history and no other branch, pull request or held work of the mirror", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const origin = yield* makeOrigin(dir)
      const root = path.join(dir, "worker")
      const workspace = yield* Workspace.make({ transport, root })
      const other = origin.commit("other-branch", "other.txt", "OTHER-BRANCH-MARKER\n")
      git(origin.work, "checkout", "--quiet", "main")
      const older = git(origin.bare, "rev-parse", "main")
      const base = origin.commit("main", "README", "main, later\n")
      yield* workspace.acquire({ attemptId: "aa/main/1", repository, cloneUrl: origin.bare, ref: "refs/pull/7/head" })
      const mirror = path.join(root, "mirrors", "acme__widgets.git")
      // Another Run's work held at the pull-request gate: a ref of the mirror only.
      const held = plant(mirror, "HELD-WORK-MARKER\n")
      git(mirror, "update-ref", "refs/usine/salvage/other-run/1", held.commit)

      const attempt = yield* workspace.acquire({ attemptId: "bb/main/1", repository, cloneUrl: origin.bare, ref: "main" })
      const start = path.join(attempt.attemptDir, "start.git")
      const objects = readable(attempt.worktree)
      assert.isTrue(objects.has(base) && objects.has(older), "the base and its history are there")
      assert.strictEqual(git(attempt.worktree, "rev-list", "--count", "HEAD"), git(origin.bare, "rev-list", "--count", "main"))
      assert.isFalse(objects.has(other), "another branch's commit")
      assert.isFalse(objects.has(git(origin.bare, "rev-parse", "refs/pull/7/head")), "another pull request's head")
      assert.isFalse(objects.has(held.commit) || objects.has(held.blob), "another Run's held work")
      assert.strictEqual(fs.readFileSync(path.join(attempt.worktree, ".git", "objects", "info", "alternates"), "utf8"), `${path.join(start, "objects")}\n`)
      assert.isFalse(fs.existsSync(path.join(start, "objects", "info", "alternates")), "the start borrows nothing")
      assert.strictEqual(git(attempt.worktree, "rev-parse", "origin/main"), base, "the base branch is named")
      assert.strictEqual(git(attempt.worktree, "branch", "-r"), "origin/main")
      assert.isTrue(has(mirror, held.commit), "the mirror keeps the held work")
    }))

  it.scopedLive("the mirror drops what only a branch deleted on GitHub held, and keeps held work", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const origin = yield* makeOrigin(dir)
      const root = path.join(dir, "worker")
      const workspace = yield* Workspace.make({ transport, root })
      const leaked = origin.commit("leak", "credentials.txt", "DELETED-BRANCH-MARKER\n")
      const blob = git(origin.bare, "rev-parse", "leak:credentials.txt")
      git(origin.work, "checkout", "--quiet", "main")
      yield* workspace.acquire({ attemptId: "cc/main/1", repository, cloneUrl: origin.bare, ref: "main" })
      const mirror = path.join(root, "mirrors", "acme__widgets.git")
      assert.isTrue(has(mirror, blob), "fetched while the branch existed")
      const held = plant(mirror, "HELD-WORK-MARKER\n")
      git(mirror, "update-ref", "refs/usine/salvage/other-run/1", held.commit)

      git(origin.bare, "update-ref", "-d", "refs/heads/leak")
      const later = yield* workspace.acquire({ attemptId: "cc/main/2", repository, cloneUrl: origin.bare, ref: "main" })
      assert.isFalse(has(mirror, blob) || has(mirror, leaked), "the deleted branch's objects left the mirror")
      assert.isTrue(has(mirror, held.blob), "held work stays")
      assert.isFalse(readable(later.worktree).has(blob))
      assert.isTrue(fs.readdirSync(path.join(mirror, "objects", "pack")).some((name) => name.endsWith(".bitmap")), "repacked with a bitmap")
    }))

  it.scopedLive("the harvest repository borrows the start only: a tree naming another Run's held file finds nothing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const origin = yield* makeOrigin(dir)
      const root = path.join(dir, "worker")
      const workspace = yield* Workspace.make({ transport, root })
      yield* workspace.acquire({ attemptId: "ee/main/1", repository, cloneUrl: origin.bare, ref: "main" })
      const mirror = path.join(root, "mirrors", "acme__widgets.git")
      const held = plant(mirror, "HELD-WORK-MARKER\n")
      git(mirror, "update-ref", "refs/usine/salvage/other-run/1", held.commit)

      const attempt = yield* workspace.acquire({ attemptId: "ee/main/2", repository, cloneUrl: origin.bare, ref: "main" })
      // The agent knows the held file's id (an issue told it) and commits a tree that names it.
      const tree = execFileSync("git", ["mktree", "--missing"], { cwd: attempt.worktree, encoding: "utf8", input: `100644 blob ${held.blob}\tstolen.txt\n` }).trim()
      const stolen = git(attempt.worktree, "commit-tree", tree, "-p", "HEAD", "-m", "stolen")
      git(attempt.worktree, "update-ref", "HEAD", stolen)
      const harvestRepo = harvestRepoOf(root, attempt.attemptDir)
      const harvest = attemptGit({
        transport, root, cloneUrl: origin.bare, token: undefined, mirror,
        start: path.join(attempt.attemptDir, "start.git"), worktree: attempt.worktree, harvestRepo
      })
      yield* Effect.either(harvest.collect("leftovers"))
      assert.strictEqual(fs.readFileSync(path.join(harvestRepo, "objects", "info", "alternates"), "utf8"), `${path.join(attempt.attemptDir, "start.git", "objects")}\n`)
      assert.isFalse(has(harvestRepo, held.blob), "the harvest repository reads the held file")
      assert.isFalse(yield* harvest.hasCommit(held.commit))
    }))
})
