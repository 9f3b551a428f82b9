import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { REPOSITORY } from "../support/daemonConfig"
import { scopedDir } from "../support/scopedSim"
import { isPullsPost } from "./support/crashPhases"
import { type HarvestScene, harvestScene } from "./support/harvestScene"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { killDaemon, startDaemon } from "./support/startDaemon"
import { waitUntil } from "./support/waitUntil"

const LOOP = "harvest"
const LABEL = "go"

const isReceivePack = (r: LoggedRequest) => r.method === "POST" && /^\/acme\/widgets\.git\/git-receive-pack$/.test(r.path)

/** A step of harvest the daemon is SIGKILLed in, and whether an Item's Run, as the ledger and GitHub show it, stands there. */
interface HarvestPhase {
  readonly name: string
  readonly at: (scene: HarvestScene) => boolean
}

const open = (scene: HarvestScene) => scene.outcome === undefined && scene.state === "Running" && scene.pushSha !== undefined

const PHASES: ReadonlyArray<HarvestPhase> = [
  // GitHub answered the push 503: the daemon waits to retry, the commit built and recorded, nothing on GitHub.
  { name: "commit built and recorded, not pushed", at: (s) => open(s) && s.branchSha === undefined },
  // Its pull request's creation answered 503: the branch is at the recorded commit, no pull request exists.
  { name: "pushed, before the pull request", at: (s) => open(s) && s.branchSha === s.pushSha && s.pulls.length === 0 },
  // The pull request is created and its answer held back: the daemon never records it.
  { name: "pull request created, its answer not recorded", at: (s) => open(s) && s.branchSha === s.pushSha && s.pulls.length === 1 }
]

/**
 * The faults that hold three Items, run at once, one in each phase: the first push is refused (that Item waits,
 * not pushed), the first pull request is created but answered a minute late (past the client's timeout, the
 * daemon never records it), every later creation is refused (those Items wait, pushed). In installation order.
 */
const FAULTS = [
  { method: "POST", path: "/acme/widgets.git/git-receive-pack", status: 503, times: 1 },
  { method: "POST", path: "/repos/*/*/pulls", delayAfterMs: 60_000, times: 1 },
  { method: "POST", path: "/repos/*/*/pulls", status: 503 }
] as const

/** Each Item's phase in `scenes`, when every phase holds exactly one Item. */
const phasesOf = (scenes: ReadonlyArray<HarvestScene>) => {
  const found = scenes.map((scene) => PHASES.filter((phase) => phase.at(scene)).map((phase) => phase.name))
  const each = found.every((names) => names.length === 1)
  const covered = new Set(found.flat()).size === PHASES.length
  return each && covered ? Option.some(found.map((names) => names[0] ?? "")) : Option.none()
}

describe("resilience: a crash at any point of harvest", () => {
  it.scopedLive(
    "SIGKILL with one Item after its commit is recorded, one after its push, one after its pull request's creation: the restart finishes the same Attempts, one pull request each, at the recorded commit",
    () =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const dir = yield* scopedDir
        const world = yield* scopedWorld
        const ledgerFile = join(dir, "state", "ledger.db")
        yield* writeResilienceConfig(dir, world, {
          agents: { dirty: agent("dirty") },
          workers: { local: { root: join(dir, "workspaces"), slots: 3 } },
          loops: [{ name: LOOP, label: LABEL, agent: "dirty", maxAttemptMinutes: 10 }]
        })
        const scenes = (numbers: ReadonlyArray<number>) => Effect.forEach(numbers, (n) => harvestScene(world, ledgerFile, n))

        const { numbers, killed } = yield* Effect.scoped(Effect.gen(function* () {
          const daemon = yield* startDaemon(dir)
          for (const fault of FAULTS) yield* world.call(() => world.control.setFault(fault))
          const numbers = yield* Effect.forEach(PHASES, (_, i) =>
            Effect.map(world.call(() => world.control.createIssue({ repo: REPOSITORY, title: `harvest ${i}`, labels: [LABEL] })), (issue) => issue.number))
          // The Item waiting pushed must be held by a refused creation, not merely about to send it.
          const held = (log: ReadonlyArray<LoggedRequest>) => log.some((r) => isPullsPost(r) && r.status === 503) && log.some((r) => isReceivePack(r) && r.status === 503)
          const reached = yield* waitUntil(
            Effect.map(scenes(numbers), (all) => (held(all[0]?.log ?? []) ? phasesOf(all) : Option.none())),
            "90 seconds",
            "20 millis"
          )
          const seen = (yield* scenes(numbers)).map((s) => `#${s.pushBranch} ${s.state} push=${s.pushSha} branch=${s.branchSha} pulls=${s.pulls.length}`)
          assert.isTrue(Option.isSome(reached), `the Items never stood one in each phase: ${seen.join("; ")}`)
          yield* killDaemon(daemon)
          yield* world.call(() => world.control.clearFaults())
          // What the dead daemon left: each kill must have landed in its phase, or the test proves nothing.
          const dead = yield* scenes(numbers)
          const landed = phasesOf(dead)
          assert.isTrue(Option.isSome(landed), `after the kill the Items were not one in each phase: ${seen.join("; ")}`)
          const phases = Option.getOrElse(landed, () => [])
          return { numbers, killed: dead.map((scene, i) => ({ phase: phases[i] ?? "", pushSha: scene.pushSha ?? "" })) }
        }))

        yield* Effect.scoped(Effect.gen(function* () {
          yield* startDaemon(dir)
          const ended = yield* waitUntil(
            Effect.map(scenes(numbers), (all) => (all.every((s) => s.state === "Succeeded" || s.state === "Failed") ? Option.some(all) : Option.none())),
            "120 seconds",
            "250 millis"
          )
          assert.isTrue(Option.isSome(ended), "the restarted daemon never ended the three Runs")
        }))

        const end = yield* scenes(numbers)
        for (const [i, scene] of end.entries()) {
          const { phase, pushSha } = killed[i] ?? { phase: "", pushSha: "" }
          assert.strictEqual(scene.state, "Succeeded", `${phase}: ${scene.outcome}`)
          assert.strictEqual(scene.attempts, 1, `${phase}: the restart followed the same Attempt, no new agent session`)
          assert.strictEqual(scene.pulls.length, 1, `${phase}: exactly one pull request`)
          assert.strictEqual(scene.branchSha, pushSha, `${phase}: the branch is at the commit recorded before the kill`)
          const pull = yield* world.read<{ head: { sha: string } }>(`/repos/${REPOSITORY}/pulls/${scene.pulls[0]?.number}`)
          assert.strictEqual(pull.head.sha, pushSha, `${phase}: the pull request is at the recorded commit`)
        }
        // Every pull request of the repository is one of these Items': nothing opened twice, nothing stray.
        assert.strictEqual((yield* world.pulls).length, PHASES.length)
        yield* Effect.log(`harvest crash: one kill in ${PHASES.length} harvest phases, restart, all done in ${((yield* Clock.currentTimeMillis) - started) / 1000} s`)
      }),
    240_000
  )
})
