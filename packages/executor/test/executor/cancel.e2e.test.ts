import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Run } from "@usine/core/run/Run"
import { SessionRecord } from "../../src/DurableSession/SessionRecord"
import { runningInGroup } from "../groupProcesses"
import { makeAttempt, makeRun, policy, recorder, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 60_000

/** Polls until `ready` holds, failing the test after `ms`. */
const until = (ready: () => boolean, what: string, ms = 15_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (!ready()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

const sessionOf = (handle: string | undefined) => Schema.decodeSync(Schema.parseJson(SessionRecord))(handle ?? "")

describe("WorkerExecutor cancel and salvage", () => {
  it.scopedLive(
    "a detached Attempt keeps running; cancel then leaves no process of its group, the salvage branch holds the work, and the operator's retry starts from it",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const run = makeRun("hang")
        const attempt = makeAttempt(run, 1)
        const log = recorder()
        const fiber = yield* Effect.fork(t.executor.execute(log.request(run, attempt, policy())))
        yield* until(() => log.rows.some((row) => row.text === "working"), "the agent to start working")
        const { pgid } = sessionOf(log.sessions[0])
        assert.isAtLeast(runningInGroup(pgid).length, 3, "the wrapper, the agent and its background child")

        // What the engine does on cancel: stop following, then cancel.
        yield* Fiber.interrupt(fiber)
        assert.isAtLeast(runningInGroup(pgid).length, 3, "detaching leaves the session running")
        assert.isTrue(yield* t.executor.isLive(attempt))
        yield* t.executor.cancel(attempt.id)

        assert.deepStrictEqual(runningInGroup(pgid), [], "no process of the Attempt's group is left")
        const salvage = `usine/salvage/${run.id}/1`
        assert.include(t.branches(), salvage)
        assert.strictEqual(t.origin("show", `${salvage}:wip.txt`), "unfinished")
        assert.isFalse(fs.existsSync(path.join(t.root, "attempts", `${run.id}_main_1`)))
        assert.isFalse(yield* t.executor.isLive(attempt))

        // The operator edits the Run to another Agent and retries: Attempt 2 starts from the salvage.
        const retried = new Run({ ...run, agent: "resume" })
        const second = recorder()
        const outcome = yield* t.executor.execute(second.request(retried, makeAttempt(retried, 2), policy()))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        assert.include(second.rows.map((row) => row.text), "found the salvaged work")
        assert.include(second.rows[0]?.text ?? "", `(${salvage})`)
        if (outcome._tag === "Succeeded") {
          assert.strictEqual(t.origin("show", `${outcome.result.branch}:wip.txt`), "unfinished\nfinished")
          // One commit leaves: usine's of the final tree, on the base, not on the salvage commit (ADR 0081).
          assert.strictEqual(outcome.result.commits.length, 1, "usine's one commit")
          assert.strictEqual(t.origin("rev-parse", `${outcome.result.branch}^`), t.origin("rev-parse", "refs/heads/main"))
          assert.match(t.origin("log", "-1", "--format=%s", `${salvage}`), /^usine: salvaged work of Run /)
        }
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a cancel while the executor follows ends execute as Canceled and kills the group",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const run = makeRun("hang")
        const attempt = makeAttempt(run, 1)
        const log = recorder()
        const fiber = yield* Effect.fork(t.executor.execute(log.request(run, attempt, policy())))
        yield* until(() => log.rows.some((row) => row.text === "working"), "the agent to start working")
        const { pgid } = sessionOf(log.sessions[0])
        yield* t.executor.cancel(attempt.id)
        const outcome = yield* Fiber.join(fiber)
        assert.strictEqual(outcome._tag, "Canceled")
        assert.deepStrictEqual(runningInGroup(pgid), [])
        assert.include(t.branches(), `usine/salvage/${run.id}/1`)
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "recovery at start salvages and removes what an earlier process left, keeps the live Attempts, and never stops a session that still runs",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const left = makeRun("hang")
        const leftAttempt = makeAttempt(left, 1)
        const live = makeRun("hang")
        const liveAttempt = makeAttempt(live, 1)
        // Running, but not among the Attempts this ledger follows: another daemon's, or one this ledger lost.
        const unknown = makeRun("hang")
        const unknownAttempt = makeAttempt(unknown, 1)
        const logs = [recorder(), recorder(), recorder()] as const
        const fibers = [
          yield* Effect.fork(t.executor.execute(logs[0].request(left, leftAttempt, policy()))),
          yield* Effect.fork(t.executor.execute(logs[1].request(live, liveAttempt, policy()))),
          yield* Effect.fork(t.executor.execute(logs[2].request(unknown, unknownAttempt, policy())))
        ]
        yield* until(() => logs.every((log) => log.rows.some((row) => row.text === "working")), "the agents to work")
        yield* Effect.forEach(fibers, Fiber.interrupt)
        const leftGroup = sessionOf(logs[0].sessions[0]).pgid
        const liveGroup = sessionOf(logs[1].sessions[0]).pgid
        const unknownGroup = sessionOf(logs[2].sessions[0]).pgid
        // The left Attempt's agent died with the earlier process (a reboot): nothing of it runs.
        process.kill(-leftGroup, "SIGKILL")
        yield* until(() => runningInGroup(leftGroup).length === 0, "the left agent to be gone")

        const staleToken = path.join(t.root, "credentials", "0123abcd", "token")
        fs.mkdirSync(path.dirname(staleToken), { recursive: true })
        fs.writeFileSync(staleToken, "left by a killed daemon", { mode: 0o600 })

        const report = yield* t.executor.recoverWorkspaces([liveAttempt])
        assert.isFalse(fs.existsSync(staleToken))
        assert.deepStrictEqual(report, { kept: [liveAttempt.id], salvaged: [leftAttempt.id], removed: [leftAttempt.id] })
        assert.isAtLeast(runningInGroup(liveGroup).length, 1)
        assert.isAtLeast(runningInGroup(unknownGroup).length, 1, "a session that runs is never stopped by recovery")
        assert.strictEqual(t.origin("show", `usine/salvage/${left.id}/1:wip.txt`), "unfinished")
        yield* t.executor.cancel(liveAttempt.id)
        assert.deepStrictEqual(runningInGroup(liveGroup), [])
        yield* t.executor.cancel(unknownAttempt.id)
        assert.deepStrictEqual(runningInGroup(unknownGroup), [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
