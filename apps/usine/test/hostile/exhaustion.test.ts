import { readFileSync } from "node:fs"
import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { board } from "../support/http"
import { attack, type HostileDaemon, hostileDaemon, runOf, settledRuns } from "./support/HostileDaemon"
import { drainsClean } from "./support/finalProofs"
import { attackRan, describeRun, neutralised, refused } from "./support/proofs"

/**
 * An agent that tries to exhaust its host (issue 31, ADR 0084), one attack per Item, through `usine up` with the
 * sandbox on and the daemon as root (as CI runs it). The Worker has small limits, and a uid of its own so that the
 * process count is not shared with other sandboxes on this machine.
 */
class Attacked extends Context.Tag("test/hostile/ExhaustionAttacks")<Attacked, {
  readonly daemon: HostileDaemon
  readonly runs: ReadonlyMap<string, RunView | undefined>
  /** The daemon's resident memory after the attacks, in KiB. */
  readonly rssKiB: number
}>() {}

const UID = 64_321
const LIMITS = `    sandbox_uid: ${UID}\n    limits:\n      processes: 48\n      memory: 256MiB\n      cpu_seconds: 120\n      tmp: 16MiB\n      home: 8MiB\n      disk: 64MiB\n`
const ATTACKS = ["fork-loop", "tmpfs-fill", "memory-hog", "worktree-fill", "whoami"] as const

const rssOf = (pid: number | undefined) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid ?? "self"}/status`, "utf8"))?.[1] ?? NaN)

const attacked = Layer.scoped(
  Attacked,
  Effect.gen(function* () {
    const daemon = yield* hostileDaemon({ slots: 2, script: "exhaustionAgent.sh", workerKeys: LIMITS })
    const views = yield* settledRuns(daemon, yield* Effect.forEach(ATTACKS, (name) => attack(daemon, name)), 180)
    const [clean] = yield* settledRuns(daemon, [yield* attack(daemon, "clean")])
    return {
      daemon,
      runs: new Map([...ATTACKS.map((name, i) => [name, views[i]] as const), ["clean", clean]]),
      rssKiB: rssOf(daemon.usine.child.pid)
    }
  })
)

/** What the agent said on stdout, one line per row. */
const said = (view: RunView): string => view.transcript.lines.map((line) => line.text).join("\n")

layer(attacked, { timeout: "300 seconds", excludeTestServices: true })("hostile agent: exhaustion, through usine up", (it) => {
  it.effect("fork-loop: the process limit stops the fork loop; the Run fails saying the fork failed", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "fork-loop")
      const forked = Number(/forked (\d+) processes/.exec(said(view))?.[1] ?? NaN)
      assert.isTrue(forked > 0 && forked < 48, `forked ${forked}: ${describeRun(view)}`)
      assert.deepStrictEqual(refused(daemon, view, /fork refused after \d+: .*(fork|Resource temporarily unavailable)/i), [])
    }))

  it.effect("tmpfs-fill: /tmp and HOME stop at their sizes; the Run fails saying no space is left", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "tmpfs-fill")
      const tmp = Number(/wrote (\d+) KiB to \/tmp/.exec(said(view))?.[1] ?? NaN)
      const home = Number(/wrote (\d+) KiB to HOME/.exec(said(view))?.[1] ?? NaN)
      assert.isTrue(tmp <= 16 * 1024 && home <= 8 * 1024, `tmp ${tmp} KiB, home ${home} KiB: ${describeRun(view)}`)
      assert.deepStrictEqual(refused(daemon, view, /No space left on device/), [])
    }))

  it.effect("memory-hog: the memory limit stops it; the Run fails saying memory ran out", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.deepStrictEqual(refused(daemon, runOf(runs, "memory-hog"), /memory exhausted|Cannot allocate memory|out of memory/i), [])
    }))

  it.effect("worktree-fill: a worktree over the disk limit ends the Attempt as an AgentFailure saying so; nothing is pushed", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "worktree-fill")
      assert.deepStrictEqual(refused(daemon, view, /the worktree takes [\d.]+ MiB, more than the Worker's disk limit of 64 MiB/), [])
      assert.strictEqual(view.attempts.length, 1, "not retried")
      assert.strictEqual(view.attempts.at(-1)?.failure?.tag, "AgentFailure")
    }))

  it.effect("whoami: the agent is not root, /etc holds only the allow-list and no shadow, its HOME and /tmp are its own", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "whoami")
      assert.isTrue(attackRan(view, "whoami"), describeRun(view))
      const text = said(view)
      assert.include(text, `uid: ${UID} gid: ${UID} groups: ${UID}`)
      assert.include(text, "shadow: absent")
      assert.include(text, "shadow: unreadable")
      assert.include(text, `passwd: root:0 agent:${UID} nobody:65534`)
      assert.include(text, "home: writable")
      assert.include(text, "tmp: writable")
      assert.include(text, "usr: read-only")
      const etc = (/^etc: (.*)$/m.exec(text)?.[1] ?? "").trim().split(" ")
      const allowed = ["alternatives", "ca-certificates", "ca-certificates.conf", "crypto-policies", "gai.conf", "group", "host.conf", "hosts", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd", "pki", "resolv.conf", "ssl", "timezone"]
      assert.deepStrictEqual(etc.filter((name) => !allowed.includes(name)), [], `not allowed in /etc: ${etc.join(" ")}`)
      assert.include(etc, "passwd")
      assert.deepStrictEqual(neutralised(daemon, view, "whoami"), [], describeRun(view))
    }))

  it.effect("after the attacks a clean Item still opens its pull request; the daemon stayed small and the Workers page names the limits", () =>
    Effect.gen(function* () {
      const { daemon, runs, rssKiB } = yield* Attacked
      assert.deepStrictEqual(neutralised(daemon, runOf(runs, "clean"), "clean"), [], describeRun(runOf(runs, "clean")))
      assert.isBelow(rssKiB, 600 * 1024, `the daemon's RSS is ${rssKiB} KiB`)
      const page = yield* board<{ readonly workers: ReadonlyArray<{ readonly confinement?: { readonly user: string; readonly limits: string } }> }>(daemon.board, "/api/workers")
      const confinement = page.workers[0]?.confinement
      assert.include(confinement?.user ?? "", `uid ${UID} (the daemon is root there`)
      assert.match(confinement?.limits ?? "", /^rlimits by prlimit \(.*\): memory 256 MiB a process, 48 processes of the agent's uid, 120 s CPU a process, files up to 64 MiB; tmpfs \/tmp 16 MiB, HOME 8 MiB; worktree up to 64 MiB at harvest$/)
    }))

  it.effect("the daemon drains on SIGTERM and exits 0", () => Effect.flatMap(Attacked, ({ daemon }) => drainsClean(daemon)), 90_000)
})
