import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { HeldPatch } from "@usine/core/attempt/Review"
import { runGit } from "@usine/github-sim/git/runGit"
import { makeAttempt, makeRun, policy, recorder, REPOSITORY, setup, simLayer } from "./support/fixture"

/** Puts files on main in the emulator, as a person pushing would. */
const pushToMain = (t: Effect.Effect.Success<ReturnType<typeof setup>>, files: Record<string, string>) =>
  Effect.gen(function* () {
    const clone = path.join(t.dir, "clone-main")
    yield* runGit(["clone", "-q", t.sim.authenticatedCloneUrl(REPOSITORY, t.account.token), clone])
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(clone, name), content)
    yield* runGit(["-C", clone, "add", "-A"])
    yield* runGit(["-C", clone, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "more files"])
    yield* runGit(["-C", clone, "push", "-q", "origin", "main"])
  }).pipe(Effect.orDie)

describe("WorkerExecutor counts what an Attempt changed", () => {
  it.scopedLive(
    "a rename, an edit, a deletion, a binary file and paths with a space and a newline, as git counts them",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        yield* pushToMain(t, { "notes.txt": "one\ntwo\nthree\n", "old.txt": "gone\nsoon\n" })
        const run = makeRun("diffstat")
        const patches: Array<HeldPatch> = []
        const request = { ...recorder().request(run, makeAttempt(run, 1), policy()), onPatch: (p: HeldPatch) => Effect.sync(() => void patches.push(p)) }
        const outcome = yield* t.executor.execute(request)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return

        assert.deepStrictEqual(outcome.result.diff, {
          filesChanged: 6,
          insertions: 6,
          deletions: 3,
          binaryFiles: 1,
          files: [
            { path: "blob.bin", insertions: 0, deletions: 0, binary: true },
            { path: "docs/a b/with space.txt", insertions: 3, deletions: 0, binary: false },
            { path: "new\nline.txt", insertions: 1, deletions: 0, binary: false },
            { path: "notes.txt", insertions: 2, deletions: 1, binary: false },
            { path: "old.txt", insertions: 0, deletions: 2, binary: false },
            { path: "read me.md", oldPath: "README.md", insertions: 0, deletions: 0, binary: false }
          ],
          filesOmitted: 0
        })
        // The figures are those of what was pushed: the pull request's own diff against main.
        const pushed = t.origin("diff", "--shortstat", "-M", "main", outcome.result.branch ?? "")
        assert.strictEqual(pushed, "6 files changed, 6 insertions(+), 3 deletions(-)")
        // Without the pull-request gate the Attempt keeps its diff too (issue 21), the one pushed, not cut.
        assert.lengthOf(patches, 1)
        const patch = patches[0]
        assert.isFalse(patch?.cut)
        assert.include(patch?.text, "+++ b/notes.txt\n")
        assert.include(patch?.text, "--- a/old.txt\n")
        assert.include(patch?.text, "rename to read me.md")
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})
