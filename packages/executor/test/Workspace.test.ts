import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, Redacted, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as LocalTransport from "../src/LocalTransport"
import * as Workspace from "../src/Workspace"
import { attemptFolderName } from "../src/Workspace/WorkspacePaths"
import { git, makeOrigin } from "./gitOrigin"
import { gitHttpServer } from "./gitHttpServer"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const transport = LocalTransport.make()

const setup = Effect.gen(function* () {
  const dir = yield* scopedTempDir()
  const origin = yield* makeOrigin(dir)
  const root = path.join(dir, "worker")
  const workspace = yield* Workspace.make({ transport, root })
  return { dir, origin, root, workspace, cloneUrl: origin.bare }
})

const read = (file: string) => fs.readFileSync(file, "utf8")

describe("Workspace", () => {
  it.scopedLive("checks out a detached worktree at the base branch and removes it when the scope closes", () =>
    Effect.gen(function* () {
      const { origin, root, workspace, cloneUrl } = yield* setup
      const scope = yield* Scope.make()
      const attempt = yield* workspace
        .acquire({ attemptId: "0123abcd/main/1", repository: "acme/widgets", cloneUrl, ref: "main" })
        .pipe(Scope.extend(scope))
      assert.strictEqual(attempt.attemptDir, path.join(root, "attempts", "0123abcd_main_1"))
      assert.strictEqual(attempt.worktree, path.join(attempt.attemptDir, "worktree"))
      assert.strictEqual(read(path.join(attempt.worktree, "README")), "main\n")
      assert.strictEqual(attempt.record.baseSha, git(origin.bare, "rev-parse", "main"))
      assert.strictEqual(git(attempt.worktree, "rev-parse", "HEAD"), attempt.record.baseSha)
      assert.strictEqual(git(attempt.worktree, "rev-parse", "--abbrev-ref", "HEAD"), "HEAD", "detached")
      const mirror = path.join(root, "mirrors", "acme__widgets.git")
      assert.isTrue(fs.existsSync(path.join(mirror, "HEAD")))
      assert.isTrue(fs.existsSync(path.join(attempt.attemptDir, "workspace.json")))

      yield* Scope.close(scope, Exit.void)
      assert.isFalse(fs.existsSync(attempt.attemptDir))
      assert.notInclude(git(mirror, "worktree", "list"), attempt.worktree)
    }))

  it.scopedLive("checks out a pull request head and fetches the mirror again on every use", () =>
    Effect.gen(function* () {
      const { origin, workspace, cloneUrl } = yield* setup
      const repository = "acme/widgets"
      const pr = yield* workspace.acquire({ attemptId: "aa/main/1", repository, cloneUrl, ref: "refs/pull/7/head" })
      assert.strictEqual(read(path.join(pr.worktree, "README")), "pull request 7\n")

      const first = yield* workspace.acquire({ attemptId: "bb/main/1", repository, cloneUrl, ref: "main" })
      const newer = origin.commit("main", "README", "main, later\n")
      const second = yield* workspace.acquire({ attemptId: "bb/main/2", repository, cloneUrl, ref: "main" })
      assert.notStrictEqual(first.record.baseSha, newer)
      assert.strictEqual(second.record.baseSha, newer)
      assert.strictEqual(read(path.join(second.worktree, "README")), "main, later\n")
    }))

  it.scopedLive("serializes fetches into one mirror: parallel acquisitions all succeed", () =>
    Effect.gen(function* () {
      const { workspace, cloneUrl } = yield* setup
      const attempts = yield* Effect.forEach(
        [1, 2, 3, 4],
        (n) => workspace.acquire({ attemptId: `cc/main/${n}`, repository: "acme/widgets", cloneUrl, ref: "main" }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(attempts.map((a) => a.worktree)).size, 4)
    }))

  it.scopedLive("keeps a worktree a live session still uses, until it is removed explicitly", () =>
    Effect.gen(function* () {
      const { workspace, cloneUrl } = yield* setup
      const scope = yield* Scope.make()
      const attempt = yield* workspace
        .acquire({ attemptId: "dd/main/1", repository: "acme/widgets", cloneUrl, ref: "main" })
        .pipe(Scope.extend(scope))
      yield* attempt.keep
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(fs.existsSync(path.join(attempt.worktree, "README")))
      assert.deepStrictEqual(yield* workspace.attempts, [attempt.attemptDir])
      const again = yield* workspace
        .acquire({ attemptId: "dd/main/1", repository: "acme/widgets", cloneUrl, ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(again._tag, "WorkspaceExists")
      yield* workspace.remove(attempt.attemptDir)
      assert.isFalse(fs.existsSync(attempt.attemptDir))
    }))

  it.scopedLive("refuses ids and links that would leave the root, and creates nothing outside it", () =>
    Effect.gen(function* () {
      const { dir, root, workspace, cloneUrl } = yield* setup
      const hostile = yield* workspace
        .acquire({ attemptId: "../../etc", repository: "acme/widgets", cloneUrl, ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(hostile._tag, "UnsafeWorkspacePath")
      const repository = yield* workspace
        .acquire({ attemptId: "ee/main/1", repository: "../evil", cloneUrl, ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(repository._tag, "UnsafeWorkspacePath")
      const option = yield* workspace
        .acquire({ attemptId: "ee/main/1", repository: "acme/widgets", cloneUrl, ref: "--upload-pack=touch" })
        .pipe(Effect.flip)
      assert.strictEqual(option._tag, "UnsafeWorkspacePath")

      assert.isFalse(fs.existsSync(path.join(root, "attempts")), "refused before creating anything")
      const outside = path.join(dir, "outside")
      fs.mkdirSync(outside)
      fs.symlinkSync(outside, path.join(root, "attempts"))
      const linked = yield* workspace
        .acquire({ attemptId: "ee/main/1", repository: "acme/widgets", cloneUrl, ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(linked._tag, "UnsafeWorkspacePath")
      assert.deepStrictEqual(fs.readdirSync(outside), [])
    }))

  it.scopedLive("checks out branches named as Dependabot and Renovate name them, and still refuses shell syntax", () =>
    Effect.gen(function* () {
      const { origin, workspace, cloneUrl } = yield* setup
      for (const [n, branch] of ["dependabot/npm_and_yarn/@types/node-20.1.0", "renovate/lib-1.0.0+build.5"].entries()) {
        const sha = origin.commit(branch, "README", `${branch}\n`)
        const attempt = yield* workspace.acquire({ attemptId: `ff/main/${n + 1}`, repository: "acme/widgets", cloneUrl, ref: branch })
        assert.strictEqual(attempt.record.baseSha, sha)
      }
      for (const ref of ["feature/$(touch PWNED)", "x;rm", "main@{1}", "a..b"]) {
        const refused = yield* workspace
          .acquire({ attemptId: "ff/main/9", repository: "acme/widgets", cloneUrl, ref })
          .pipe(Effect.flip)
        assert.strictEqual(refused._tag, "UnsafeWorkspacePath", ref)
      }
    }))

  it("names Attempt folders one to one", () => {
    assert.deepStrictEqual(attemptFolderName("0123abcd/main/1"), Either.right("0123abcd_main_1"))
    const a = Either.getOrThrow(attemptFolderName("a_b/c"))
    const b = Either.getOrThrow(attemptFolderName("a/b_c"))
    assert.notStrictEqual(a, b)
    assert.match(a, /^[A-Za-z0-9._-]+$/)
    assert.match(Either.getOrThrow(attemptFolderName("x/ü y$(rm)/1")), /^[A-Za-z0-9._-]+$/)
    assert.isTrue(Either.isLeft(attemptFolderName("run/../1")))
    assert.isTrue(Either.isLeft(attemptFolderName("")))
  })

  it.scopedLive("fetches with a token lent through GIT_ASKPASS, written nowhere git keeps it", () =>
    Effect.gen(function* () {
      const { dir, root, workspace } = yield* setup
      const token = "ghs_s3cret-token"
      const { url } = yield* gitHttpServer(dir, token)
      const cloneUrl = `${url}/origin.git`
      const attempt = yield* workspace.acquire({
        attemptId: "ff/main/1",
        repository: "acme/widgets",
        cloneUrl,
        token: Redacted.make(token),
        ref: "main"
      })
      assert.strictEqual(read(path.join(attempt.worktree, "README")), "main\n")
      const mirror = path.join(root, "mirrors", "acme__widgets.git")
      assert.notInclude(read(path.join(mirror, "config")), token)
      assert.notInclude(read(path.join(mirror, "config")), cloneUrl, "the mirror has no remote an agent could repoint")
      assert.notInclude(read(path.join(attempt.worktree, ".git", "config")), token)
      assert.notInclude(read(path.join(attempt.worktree, ".git", "config")), cloneUrl, "the agent's clone knows only the mirror")
      assert.deepStrictEqual(fs.readdirSync(path.join(root, "credentials")), [], "the lent token is gone")

      const refused = yield* workspace
        .acquire({ attemptId: "ff/main/2", repository: "acme/widgets", cloneUrl, token: Redacted.make("wrong"), ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(refused._tag, "GitCommandFailed")
      const withUserInfo = yield* workspace
        .acquire({ attemptId: "ff/main/3", repository: "acme/widgets", cloneUrl: cloneUrl.replace("//", `//x:${token}@`), ref: "main" })
        .pipe(Effect.flip)
      assert.strictEqual(withUserInfo._tag, "UnsafeWorkspacePath")
    }))
})
