import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN } from "../support/daemonConfig"
import { attack, type HostileDaemon, hostileDaemon, runOf, settledRuns } from "./support/HostileDaemon"
import { drainsClean, nothingLeaked } from "./support/finalProofs"
import { attackRan, describeRun, neutralised, refused } from "./support/proofs"

/**
 * A prompt-injected agent after the daemon's secrets (issue 16): hiding one from the guards' diff, reading them
 * where the daemon keeps them, a symlinked `.github`, and a process left behind that copies every token the
 * daemon lends to git for the next minute, while the other Runs fetch and push.
 */
class Attacked extends Context.Tag("test/hostile/SecretAttacks")<Attacked, {
  readonly daemon: HostileDaemon
  readonly runs: ReadonlyMap<string, RunView | undefined>
}>() {}

const LATER = ["hidden-secret", "read-secrets", "github-symlink"] as const

const attacked = Layer.scoped(
  Attacked,
  Effect.gen(function* () {
    const daemon = yield* hostileDaemon({ slots: 2 })
    // First, so that its process watches the credentials folder while every later Run fetches and pushes.
    const [poller] = yield* settledRuns(daemon, [yield* attack(daemon, "credential-poller")])
    const views = yield* settledRuns(daemon, yield* Effect.forEach(LATER, (name) => attack(daemon, name)))
    const [clean] = yield* settledRuns(daemon, [yield* attack(daemon, "clean")])
    return {
      daemon,
      runs: new Map([["credential-poller", poller], ...LATER.map((name, i) => [name, views[i]] as const), ["clean", clean]])
    }
  })
)

/** What the agent kept for itself of an attack. */
const kept = (daemon: HostileDaemon, name: string) => {
  const file = join(daemon.loot, name)
  return existsSync(file) ? readFileSync(file, "latin1") : ""
}

layer(attacked, { timeout: "240 seconds", excludeTestServices: true })("hostile agent: secrets, through usine up", (it) => {
  it.effect("hidden-secret: a token behind `notes.txt -diff` is still read by the guards; nothing is pushed", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.isTrue(attackRan(runOf(runs, "hidden-secret"), "hidden-secret"))
      assert.deepStrictEqual(
        refused(daemon, runOf(runs, "hidden-secret"), /pre-push guards refused the change[\s\S]*secret_scan: notes\.txt:1 looks like a github token/),
        []
      )
    }))

  it.effect("read-secrets: the daemon's environment, usine.yaml, the token file and the ledger give the agent no secret", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "read-secrets")
      assert.isTrue(attackRan(view, "read-secrets"), describeRun(view))
      const found = kept(daemon, "read-secrets")
      assert.isFalse(found.includes(daemon.token), "the agent read the GitHub token")
      assert.isFalse(found.includes(BOARD_TOKEN), "the agent read the Board token")
      // Whatever it found, the Run either carried it nowhere or was refused for it.
      const outcome = view.run.state === "Succeeded"
        ? neutralised(daemon, view, "read-secrets").filter((p) => !p.includes("does not hold the agent's change"))
        : refused(daemon, view, /pre-push guards refused the change[\s\S]*secret_scan: found\.txt/)
      assert.deepStrictEqual(outcome, [], describeRun(view))
    }))

  it.effect("github-symlink: `.github -> ci` with ci/workflows/x.yml is refused as a forbidden path", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.isTrue(attackRan(runOf(runs, "github-symlink"), "github-symlink"))
      assert.deepStrictEqual(
        refused(daemon, runOf(runs, "github-symlink"), /links: \.github a symbolic link that reaches forbidden path \.github\/workflows/),
        []
      )
    }))

  it.effect("credential-poller: the process it left behind copied no token the daemon lent to git", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.isTrue(attackRan(runOf(runs, "credential-poller"), "credential-poller"))
      assert.deepStrictEqual(neutralised(daemon, runOf(runs, "credential-poller"), "credential-poller"), [])
      assert.isFalse(kept(daemon, "credential-poller").includes(daemon.token), "the left-behind process copied the GitHub token")
    }))

  it.effect("after the attacks a clean Item still opens its pull request", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.deepStrictEqual(neutralised(daemon, runOf(runs, "clean"), "clean"), [], describeRun(runOf(runs, "clean")))
    }))

  it.effect("no planted program ran, no credential reached the listener, and the token is nowhere it should not be", () =>
    Effect.flatMap(Attacked, ({ daemon, runs }) => nothingLeaked(daemon, runs)))

  it.effect("the daemon drains on SIGTERM and exits 0, its output free of the token", () =>
    Effect.flatMap(Attacked, ({ daemon }) => drainsClean(daemon)), 90_000)
})
