import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Schedule } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Run } from "@usine/core/run/Run"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 60_000

/** Polls until `ready` holds, failing the test after `ms`. */
const until = (ready: () => boolean | Effect.Effect<boolean>, what: string, ms = 15_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    for (;;) {
      const answer = ready()
      if (typeof answer === "boolean" ? answer : yield* answer) return
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

type Fixture = Effect.Effect.Success<ReturnType<typeof setup>>

const mirrorOf = (t: Fixture) => path.join(t.root, "mirrors", "acme__widgets.git")
const inMirror = (t: Fixture, ...args: Array<string>) => execFileSync("git", ["--git-dir", mirrorOf(t), ...args], { encoding: "utf8" }).trim()
const localRefs = (t: Fixture) => inMirror(t, "for-each-ref", "--format=%(refname)", "refs/usine").split("\n").filter((l) => l !== "")
const attemptDir = (t: Fixture, run: Run, number: number) => path.join(t.root, "attempts", `${run.id}_main_${number}`)

const gitDown = (t: Fixture) => t.setGitReachable(false)
const gitUp = (t: Fixture) => t.setGitReachable(true)
/** GitHub refuses pushes of salvage branches (a pre-receive hook on the emulator's repository), or takes them again. */
const refuseSalvagePushes = (t: Fixture, refuse: boolean) => {
  const hook = path.join(t.origin("rev-parse", "--absolute-git-dir"), "hooks", "pre-receive")
  if (!refuse) return fs.rmSync(hook, { force: true })
  fs.mkdirSync(path.dirname(hook), { recursive: true })
  fs.writeFileSync(hook, "#!/bin/sh\nwhile read -r old new ref; do case $ref in refs/heads/usine/salvage/*) exit 1 ;; esac; done\n", { mode: 0o755 })
}

/** A Run whose agent commits `slow.txt` once the test opens its gate; the setup that runs it. */
const gatedRun = Effect.gen(function* () {
  const gate = path.join(yield* scopedTempDir("usine-gate-"), "go")
  const t = yield* setup({ agents: { gated: scriptedAgent("slow", { GATE: gate, LINES_TOTAL: "2", LINE_DELAY: "0.01" }) } })
  return { t, run: makeRun("gated"), open: () => fs.writeFileSync(gate, "") }
})

/** Attempt 1 of the gated Run, with GitHub gone (API 502, git unreachable) from while the agent works to the end. */
const githubDownAtHarvest = Effect.gen(function* () {
  const { t, run, open } = yield* gatedRun
  const log = recorder()
  const fiber = yield* Effect.fork(t.executor.execute(log.request(run, makeAttempt(run, 1), policy())))
  yield* until(() => log.sessions.length > 0, "the agent's session")
  yield* t.sim.control.setFault({ path: "/repos/**", status: 502 })
  gitDown(t)
  open()
  const outcome = yield* Fiber.join(fiber)
  return { t, run, log, outcome }
})

describe("GitHub down at harvest: the work is never lost", () => {
  it.scopedLive(
    "the Attempt fails as InfraFailure but keeps its folder and a local salvage ref; the next Attempt salvages it and continues from it",
    () =>
      Effect.gen(function* () {
        const { t, run, log, outcome } = yield* githubDownAtHarvest
        assert.strictEqual(outcome._tag === "Failed" && outcome.failure._tag, "InfraFailure", JSON.stringify(outcome))
        assert.isTrue(fs.existsSync(attemptDir(t, run, 1)), "the folder holding the agent's commit stays")
        const local = `refs/usine/salvage/${run.id}/1`
        assert.deepStrictEqual(localRefs(t), [local])
        assert.strictEqual(inMirror(t, "show", `${local}:slow.txt`), "slow")
        assert.include(log.rows.at(-1)?.text ?? "", "could not be salvaged")
        const journal = JSON.parse(fs.readFileSync(path.join(attemptDir(t, run, 1), "journal.json"), "utf8")) as Array<{ _tag: string; salvage?: string }>
        assert.strictEqual(journal.at(-1)?._tag, "outcome")
        assert.strictEqual(journal.at(-1)?.salvage, "Failed")
        assert.notInclude(t.branches().join(" "), "usine/")

        // GitHub is back; the Run's next Attempt first salvages what Attempt 1 left, then starts from it.
        yield* t.sim.control.clearFaults()
        gitUp(t)
        const second = recorder()
        const retried = new Run({ ...run, agent: "edit" })
        const next = yield* t.executor.execute(second.request(retried, makeAttempt(retried, 2), policy()))
        assert.strictEqual(next._tag, "Succeeded", JSON.stringify(next))
        const salvage = `usine/salvage/${run.id}/1`
        assert.strictEqual(t.origin("show", `${salvage}:slow.txt`), "slow")
        assert.include(second.rows[0]?.text ?? "", `(${salvage})`)
        assert.isFalse(fs.existsSync(attemptDir(t, run, 1)), "once salvaged, Attempt 1's folder goes")
        assert.deepStrictEqual(localRefs(t), [], "a pushed salvage leaves no local ref")
        if (next._tag === "Succeeded") {
          assert.strictEqual(t.origin("show", `${next.result.branch}:slow.txt`), "slow", "Attempt 1's work reached the pull request")
          assert.include(t.origin("show", `${next.result.branch}:feature.txt`), "feature:")
        }
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "while the salvage push still fails, the next Attempt starts from the local salvage ref; the next start pushes it",
    () =>
      Effect.gen(function* () {
        const { t, run, outcome } = yield* githubDownAtHarvest
        assert.strictEqual(outcome._tag, "Failed")
        // The API and git answer again, but GitHub still refuses the salvage push when Attempt 2 begins.
        yield* t.sim.control.clearFaults()
        gitUp(t)
        refuseSalvagePushes(t, true)
        const second = recorder()
        const retried = new Run({ ...run, agent: "edit" })
        const next = yield* t.executor.execute(second.request(retried, makeAttempt(retried, 2), policy()))
        assert.strictEqual(next._tag, "Succeeded", JSON.stringify(next))
        assert.include(second.rows[0]?.text ?? "", `(refs/usine/salvage/${run.id}/1)`)
        if (next._tag === "Succeeded") assert.strictEqual(t.origin("show", `${next.result.branch}:slow.txt`), "slow")
        assert.isTrue(fs.existsSync(attemptDir(t, run, 1)), "its salvage never succeeded: the folder stays")

        refuseSalvagePushes(t, false)
        const report = yield* t.executor.recoverWorkspaces([])
        assert.include(report.salvaged, `${run.id}/main/1`)
        assert.strictEqual(t.origin("show", `usine/salvage/${run.id}/1:slow.txt`), "slow")
        assert.isFalse(fs.existsSync(attemptDir(t, run, 1)))
        assert.deepStrictEqual(localRefs(t), [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})

describe("a harvest that fails on GitHub is retried in place", () => {
  it.scopedLive(
    "pull request creation answers 502 three times: the harvest retries, one agent session, one pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        yield* t.sim.control.setFault({ method: "POST", path: "/repos/acme/widgets/pulls", status: 502, times: 3 })
        const run = makeRun("edit")
        const log = recorder()
        const outcome = yield* t.executor.execute(log.request(run, makeAttempt(run, 1), policy()))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        assert.strictEqual(log.sessions.length, 1, "the agent ran once")
        assert.strictEqual(log.rows.filter((row) => row.text === "agent turn 1 started").length, 1)
        const posts = (yield* t.sim.control.requestLog()).filter((r) => r.method === "POST" && r.path.startsWith("/repos/acme/widgets/pulls"))
        assert.deepStrictEqual(posts.map((r) => r.status), [502, 502, 502, 201])
        assert.strictEqual((yield* t.pulls).length, 1)
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a cancel interrupts the retry's wait, and the work is salvaged",
    () =>
      Effect.gen(function* () {
        const t = yield* setup({ harvestRetryPolicy: Schedule.spaced("1 minute").pipe(Schedule.intersect(Schedule.recurs(5))) })
        yield* t.sim.control.setFault({ method: "POST", path: "/repos/acme/widgets/pulls", status: 502 })
        const run = makeRun("edit")
        const attempt = makeAttempt(run, 1)
        const fiber = yield* Effect.fork(t.executor.execute(recorder().request(run, attempt, policy())))
        const refused = t.sim.control.requestLog().pipe(
          Effect.map((log) => log.some((r) => r.method === "POST" && r.path.startsWith("/repos/acme/widgets/pulls") && r.status === 502)),
          Effect.orDie
        )
        yield* until(() => refused, "the first refused pull request")
        const canceledAt = yield* Clock.currentTimeMillis
        yield* t.executor.cancel(attempt.id)
        const outcome = yield* Fiber.join(fiber)
        assert.strictEqual(outcome._tag, "Canceled")
        assert.isBelow((yield* Clock.currentTimeMillis) - canceledAt, 15_000, "the minute-long wait did not hold the cancel")
        assert.include(t.origin("show", `usine/salvage/${run.id}/1:feature.txt`), "feature:")
        assert.isFalse(fs.existsSync(attemptDir(t, run, 1)))
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
