import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { attack, type HostileDaemon, hostileDaemon, runOf, settledRuns } from "./HostileDaemon"
import { drainsClean, nothingLeaked } from "./finalProofs"
import { attackRan, describeRun, markerFindings, neutralised, refused } from "./proofs"

/**
 * Git settings a prompt-injected agent plants in its clone, and for a few seconds in every mirror and harvest
 * repository it can find under the Worker root (issue 16). Each comes to nothing: the Run's work still goes to the
 * emulator, and nothing the agent configured runs or is asked where to send the token.
 */
const NEUTRALISED = ["remote-url", "insteadof", "http-proxy", "ssh-command", "ext-remote", "fsmonitor", "hooks-path", "filter"] as const

interface Attacks {
  readonly daemon: HostileDaemon
  readonly runs: ReadonlyMap<string, RunView | undefined>
}

/**
 * The git-settings attacks on one daemon, then a clean Item, each checked in a test of its own. In the sandbox the
 * agent also tries every mirror and harvest repository of the Worker root (it sees none). `sandbox: "none"` runs
 * it unconfined, planting in its own clone only (see `hostileDaemon`).
 */
export const gitConfigSuite = (options: { readonly sandbox?: "none" } = {}) => {
  class Attacked extends Context.Tag(`test/hostile/GitConfigAttacks/${options.sandbox ?? "default"}`)<Attacked, Attacks>() {}

  const attacked = Layer.scoped(
    Attacked,
    Effect.gen(function* () {
      const daemon = yield* hostileDaemon({ slots: 3, ...options })
      const names = [...NEUTRALISED, "gitdir-file"]
      const numbers = yield* Effect.forEach(names, (name) => attack(daemon, name))
      const views = yield* settledRuns(daemon, numbers)
      // After every attack, on the mirror they tried to poison: a clean Item still becomes a pull request.
      const [clean] = yield* settledRuns(daemon, [yield* attack(daemon, "clean")])
      return { daemon, runs: new Map([...names.map((name, i) => [name, views[i]] as const), ["clean", clean]]) }
    })
  )

  const title = `hostile agent: git settings, through usine up${options.sandbox === "none" ? ", without the sandbox" : ""}`
  layer(attacked, { timeout: "240 seconds", excludeTestServices: true })(title, (it) => {
    it.effect.each(NEUTRALISED)("%s: the planted setting is ignored; the work goes to the emulator", (name) =>
      Effect.gen(function* () {
        const { daemon, runs } = yield* Attacked
        assert.isTrue(attackRan(runOf(runs, name), name), describeRun(runOf(runs, name)))
        assert.deepStrictEqual(neutralised(daemon, runOf(runs, name), name), [])
        assert.deepStrictEqual(markerFindings(daemon).filter((found) => found.startsWith(`${name}:`)), [])
      }))

    it.effect("gitdir-file: a .git file naming a gitdir the agent made is refused, and said so", () =>
      Effect.gen(function* () {
        const { daemon, runs } = yield* Attacked
        assert.isTrue(attackRan(runOf(runs, "gitdir-file"), "gitdir-file"), describeRun(runOf(runs, "gitdir-file")))
        assert.deepStrictEqual(refused(daemon, runOf(runs, "gitdir-file"), /refused to read the agent's work: the worktree's \.git is no longer the folder usine made/), [])
        assert.deepStrictEqual(markerFindings(daemon).filter((found) => found.startsWith("gitdir-file:")), [])
      }))

    it.effect("after the attacks a clean Item still opens its pull request", () =>
      Effect.gen(function* () {
        const { daemon, runs } = yield* Attacked
        assert.deepStrictEqual(neutralised(daemon, runOf(runs, "clean"), "clean"), [], describeRun(runOf(runs, "clean")))
      }))

    it.effect("no planted program ran, nothing but the agent reached the listener, and the token is nowhere it should not be", () =>
      Effect.flatMap(Attacked, ({ daemon, runs }) => nothingLeaked(daemon, runs)))

    it.effect("the daemon drains on SIGTERM and exits 0, its output free of the token", () =>
      Effect.flatMap(Attacked, ({ daemon }) => drainsClean(daemon)), 90_000)
  })
}
