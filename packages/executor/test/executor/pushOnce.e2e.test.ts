import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schedule } from "effect"
import { execFileSync } from "node:child_process"
import * as path from "node:path"
import type { PushLedger, PushRecord } from "@usine/core/attempt/PushRecord"
import type { Run } from "@usine/core/run/Run"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 90_000

type Fixture = Effect.Effect.Success<ReturnType<typeof setup>>

/** The ledger's side of the push, as the engine lends it (`PushRecords.recordPush`): the first record stays. */
const pushLedger = () => {
  let held = Option.none<PushRecord>()
  const ledger: PushLedger = {
    recorded: Effect.sync(() => held),
    record: (push) => Effect.sync(() => void (held = Option.orElse(held, () => Option.some(push))))
  }
  return { ledger, held: () => held }
}

/** The Worker's harvest waits a minute before retrying GitHub: the test stops it there, as a restart would. */
const world = setup({
  agents: { uncommitted: scriptedAgent("uncommitted") },
  harvestRetryPolicy: Schedule.spaced("1 minute").pipe(Schedule.intersect(Schedule.recurs(3)))
})

const branchOf = (run: Run) => `usine/start-dev/1-${run.id.slice(0, 8)}`
const branchSha = (t: Fixture, run: Run) => {
  const line = t.origin("for-each-ref", "--format=%(objectname)", `refs/heads/${branchOf(run)}`)
  return line === "" ? undefined : line
}
const mirrorRefs = (t: Fixture) =>
  execFileSync("git", ["--git-dir", path.join(t.root, "mirrors", "acme__widgets.git"), "for-each-ref", "--format=%(refname)", "refs/usine/push"], {
    encoding: "utf8"
  }).split("\n").filter((line) => line !== "")

const isPullsPost = (r: LoggedRequest) => r.method === "POST" && r.path.startsWith("/repos/acme/widgets/pulls")
const isReceivePack = (r: LoggedRequest) => r.method === "POST" && r.path === "/acme/widgets.git/git-receive-pack"

/** Polls the emulator's request log until `seen` holds. */
const untilLogged = (t: Fixture, seen: (log: ReadonlyArray<LoggedRequest>) => boolean, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 30_000
    while (!seen(yield* t.sim.control.requestLog())) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

/**
 * An Attempt of the `uncommitted` agent (usine commits what it left), stopped while its harvest waits to retry
 * GitHub after `fault`, as a SIGKILL of the daemon would stop it; then, a second later (a commit made again now has
 * another sha), the fault cleared and the Attempt followed again from its journal, with `pushes` or without.
 */
const stopInHarvest = (t: Fixture, fault: Parameters<Fixture["sim"]["control"]["setFault"]>[0], hit: (r: LoggedRequest) => boolean) =>
  Effect.gen(function* () {
    const run = makeRun("uncommitted")
    const attempt = makeAttempt(run, 1)
    const pushes = pushLedger()
    yield* t.sim.control.setFault(fault)
    const log = recorder()
    const first = yield* Effect.fork(t.executor.execute({ ...log.request(run, attempt, policy()), pushes: pushes.ledger }))
    yield* untilLogged(t, (entries) => entries.some((r) => hit(r) && r.status === fault.status), "the refused request")
    yield* Fiber.interrupt(first)
    yield* Effect.sleep("1100 millis")
    yield* t.sim.control.clearFaults()
    const again = (withLedger: boolean) => t.executor.execute({ ...log.request(run, attempt, policy(), true), ...(withLedger ? { pushes: pushes.ledger } : {}) })
    return { run, pushes, again }
  })

describe("harvest run again recognises its own push (ADR 0082)", () => {
  it.scopedLive(
    "stopped after the push, before the pull request: the branch at the recorded commit is ours, nothing is pushed again, one pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* world
        const { run, pushes, again } = yield* stopInHarvest(t, { method: "POST", path: "/repos/acme/widgets/pulls", status: 502 }, isPullsPost)
        const recorded = Option.getOrThrow(pushes.held())
        assert.strictEqual(recorded.branch, branchOf(run))
        assert.strictEqual(branchSha(t, run), recorded.sha, "the push landed before the stop")
        assert.deepStrictEqual(yield* t.pulls, [], "no pull request yet")
        const pushesBefore = (yield* t.sim.control.requestLog()).filter(isReceivePack).length

        const outcome = yield* again(true)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        const pulls = yield* t.pulls
        assert.deepStrictEqual(pulls.map((p) => [p.head.ref, p.head.sha]), [[branchOf(run), recorded.sha]])
        assert.strictEqual((yield* t.sim.control.requestLog()).filter(isReceivePack).length, pushesBefore, "nothing was pushed again")
        if (outcome._tag === "Succeeded") assert.deepStrictEqual(outcome.result.commits, [recorded.sha])
        assert.deepStrictEqual(mirrorRefs(t), [], "the kept commit's ref goes once it is on GitHub")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "without the record the same run again builds the same commit (usine's, dated at the Attempt's start): the branch at it is its own push",
    () =>
      Effect.gen(function* () {
        const t = yield* world
        const { run, again } = yield* stopInHarvest(t, { method: "POST", path: "/repos/acme/widgets/pulls", status: 502 }, isPullsPost)
        const first = branchSha(t, run)
        const outcome = yield* again(false)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        assert.strictEqual(branchSha(t, run), first, "the rebuilt commit is the one pushed before")
        const pulls = yield* t.pulls
        assert.deepStrictEqual(pulls.map((p) => [p.head.ref, p.head.sha]), [[branchOf(run), first]])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "stopped after the commit was recorded, its push refused (503): the recorded commit is pushed, not a rebuilt one",
    () =>
      Effect.gen(function* () {
        const t = yield* world
        const { run, pushes, again } = yield* stopInHarvest(t, { method: "POST", path: "/acme/widgets.git/git-receive-pack", status: 503 }, isReceivePack)
        const recorded = Option.getOrThrow(pushes.held())
        assert.strictEqual(branchSha(t, run), undefined, "nothing reached GitHub")
        assert.deepStrictEqual(mirrorRefs(t), [`refs/usine/push/${run.id}/1`], "the recorded commit is kept in the mirror")

        const outcome = yield* again(true)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        assert.strictEqual(branchSha(t, run), recorded.sha, "the commit recorded before the stop is the one pushed")
        const pulls = yield* t.pulls
        assert.deepStrictEqual(pulls.map((p) => [p.head.ref, p.head.sha]), [[branchOf(run), recorded.sha]])
        assert.deepStrictEqual(mirrorRefs(t), [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a branch someone else moved after the daemon's push is still refused by the lease, and left as they left it",
    () =>
      Effect.gen(function* () {
        const t = yield* world
        const { run, pushes, again } = yield* stopInHarvest(t, { method: "POST", path: "/repos/acme/widgets/pulls", status: 502 }, isPullsPost)
        const recorded = Option.getOrThrow(pushes.held())
        const theirs = t.origin("rev-parse", "main")
        t.origin("update-ref", `refs/heads/${branchOf(run)}`, theirs)
        const outcome = yield* again(true)
        assert.strictEqual(outcome._tag, "Failed", JSON.stringify(outcome))
        if (outcome._tag === "Failed") assert.include(outcome.failure.reason, "moved on GitHub since the Attempt began; nothing was overwritten")
        assert.strictEqual(branchSha(t, run), theirs)
        assert.notStrictEqual(theirs, recorded.sha)
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
