import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer, Option } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { runGit } from "../resilience/support/runGit"
import { type HostileDaemon, hostileDaemon, type RunsJson, settledRuns } from "./support/HostileDaemon"
import { drainsClean, nothingLeaked } from "./support/finalProofs"
import { attackRan, describeRun, neutralised, remoteFile } from "./support/proofs"

/**
 * Issue 31, item 2 (ADR 0083): an agent sees only its own starting point. Another Run holds work at the pull-request
 * gate (never pushed, kept in the Worker's mirror), and a branch with a file was pushed to GitHub, fetched by the
 * mirror, then deleted there. A later agent, told the names of those objects, lists every object its clone reaches,
 * adds every git directory of the Worker root it finds as an alternate, fetches from them, and asks for the objects
 * by name; what it found is printed, kept, and committed with its work, which usine pushes.
 */
const LOOPS = `
  - name: hostile
    on: issues
    if: '"hostile" in item.labels'
    prompt: "attack {{ item.title }} on #{{ item.number }}"
    agent: hostile
    approval: none
    retry_backoff: [1s]
  - name: gate
    on: issues
    if: '"gate" in item.labels'
    prompt: "attack {{ item.title }} on #{{ item.number }}"
    agent: hostile
    approval: {start: none, pull_request: required}`

const HELD = "HELD-WORK-MARKER"
const DELETED = "DELETED-BRANCH-MARKER"

class Attacked extends Context.Tag("test/hostile/OtherWork")<Attacked, {
  readonly daemon: HostileDaemon
  readonly thief: RunView
  readonly mirror: string
  /** The objects the thief was told about: the held commit and its file's blob, the deleted branch's blob. */
  readonly held: { readonly commit: string; readonly blob: string }
  readonly deletedBlob: string
}>() {}

const gitIn = (gitDir: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 }).trim()

const holds = (gitDir: string, sha: string) => {
  try {
    gitIn(gitDir, "cat-file", "-e", sha)
    return true
  } catch {
    return false
  }
}

const issue = (daemon: HostileDaemon, title: string, label: string) =>
  Effect.promise(async () => {
    const created = await daemon.sim.control.createIssue({ repo: REPOSITORY, title, body: "" })
    await daemon.sim.control.addLabels({ repo: REPOSITORY, number: created.number, labels: [label] })
    return created.number
  })

const attacked = Layer.scoped(
  Attacked,
  Effect.gen(function* () {
    const daemon = yield* hostileDaemon({ loops: LOOPS, slots: 1 })
    yield* Effect.promise(() => daemon.sim.control.createLabel({ repo: REPOSITORY, name: "gate" }))
    const clone = join(daemon.dir, "clone")
    const git = (...args: ReadonlyArray<string>) => Effect.orDie(runGit(daemon.dir, "-C", clone, ...args))
    yield* Effect.orDie(runGit(daemon.dir, "clone", "--quiet", daemon.sim.authenticatedCloneUrl(REPOSITORY, daemon.token), clone))
    yield* git("checkout", "--quiet", "-b", "leak")
    writeFileSync(join(clone, "leaked.txt"), `${DELETED}: a credential scrubbed from GitHub since\n`)
    yield* git("add", "leaked.txt")
    yield* git("commit", "--quiet", "-m", "a file deleted later")
    yield* git("push", "--quiet", "origin", "leak")
    const deletedBlob = (yield* git("rev-parse", "leak:leaked.txt")).trim()

    // The gated Run's Attempt fetches the mirror (bringing `leak`), and its verified work is held there.
    const gated = yield* issue(daemon, "held-work", "gate")
    const reviewing = yield* eventually(
      "the gated Run holds its work for review",
      Effect.map(board<RunsJson>(daemon.board, "/api/runs"), ({ page }) =>
        Option.fromNullable(page.runs.find((r) => r.number === gated && r.state === "Reviewing"))),
      120
    )
    const mirror = join(daemon.workerRoot, "mirrors", "acme__widgets.git")
    const heldRef = gitIn(mirror, "for-each-ref", "--format=%(refname)", "refs/usine/salvage/").split("\n")[0] ?? ""
    const held = { commit: gitIn(mirror, "rev-parse", heldRef), blob: gitIn(mirror, "rev-parse", `${heldRef}:held.txt`) }
    assert.include(gitIn(mirror, "cat-file", "-p", held.blob), HELD, `the held work of ${reviewing.id} is in the mirror`)
    assert.isTrue(holds(mirror, deletedBlob), "the mirror fetched the branch before it was deleted")

    yield* git("push", "--quiet", "origin", ":leak")
    // Its config names the token: nothing of the test's own may be where the proofs look for it.
    rmSync(clone, { recursive: true, force: true })
    const thiefIssue = yield* issue(daemon, `steal-objects ${held.commit} ${held.blob} ${deletedBlob}`, "hostile")
    const [thief] = yield* settledRuns(daemon, [thiefIssue], 150)
    if (thief === undefined) throw new Error("the thief's issue opened no Run")
    return { daemon, thief, mirror, held, deletedBlob }
  })
)

/** Every place the thief could have carried what it found: its Board page, what it kept, every ref on the emulator. */
const carried = (daemon: HostileDaemon, thief: RunView) => {
  const loot = join(daemon.loot, "steal-objects")
  const everything = gitIn(daemon.remoteGitDir, "log", "--all", "-p", "--text", "--format=commit %H%n%B")
  return {
    board: JSON.stringify(thief),
    kept: existsSync(loot) ? readFileSync(loot, "latin1") : "",
    emulator: everything,
    listener: daemon.listener.connections().map((c) => c.raw).join("\n")
  }
}

layer(attacked, { timeout: "300 seconds", excludeTestServices: true })("hostile agent: another Attempt's work, through usine up", (it) => {
  it.effect("the thief ran its attack to the end and its work went out: what it found is on the emulator", () =>
    Effect.gen(function* () {
      const { daemon, thief } = yield* Attacked
      assert.isTrue(attackRan(thief, "steal-objects"), describeRun(thief))
      assert.deepStrictEqual(neutralised(daemon, thief, "steal-objects"), [], describeRun(thief))
      const found = remoteFile(daemon, thief.result?.branch ?? "", "found-objects.txt") ?? ""
      // It did read what its own start holds: the sample repository's files.
      assert.include(found, "objects of the clone:")
      assert.include(found, "Turns titles into URL slugs.")
      assert.match(found, /alternates:\n\/.*\/attempts\/[^/]+\/start\.git\/objects\n/)
    }))

  it.effect("work another Run holds at the pull-request gate is nowhere the thief could print or push", () =>
    Effect.gen(function* () {
      const { daemon, held, thief } = yield* Attacked
      const places = carried(daemon, thief)
      for (const [where, text] of Object.entries(places)) assert.notInclude(text, HELD, `the held work reached ${where}`)
      const reachable = gitIn(daemon.remoteGitDir, "rev-list", "--objects", "--all")
      assert.notInclude(reachable, held.commit, "a ref on the emulator reaches the held commit")
      assert.notInclude(reachable, held.blob, "a ref on the emulator reaches the held file")
    }))

  it.effect("a file of a branch deleted on GitHub is nowhere the thief could print or push, and the mirror dropped it", () =>
    Effect.gen(function* () {
      const { daemon, deletedBlob, mirror, held, thief } = yield* Attacked
      const places = carried(daemon, thief)
      for (const [where, text] of Object.entries(places)) assert.notInclude(text, DELETED, `the deleted branch's file reached ${where}`)
      assert.notInclude(gitIn(daemon.remoteGitDir, "rev-list", "--objects", "--all"), deletedBlob, "a ref on the emulator reaches the deleted file")
      assert.isFalse(holds(mirror, deletedBlob), "the mirror still holds what GitHub deleted")
      assert.isTrue(holds(mirror, held.blob), "the mirror lost the held work")
    }))

  it.effect("no planted program ran, no credential reached the listener, and the token is nowhere it should not be", () =>
    Effect.flatMap(Attacked, ({ daemon, thief }) => nothingLeaked(daemon, new Map([["steal-objects", thief]]))))

  it.effect("the daemon drains on SIGTERM and exits 0, its output free of the token", () =>
    Effect.flatMap(Attacked, ({ daemon }) => drainsClean(daemon)), 90_000)
})
