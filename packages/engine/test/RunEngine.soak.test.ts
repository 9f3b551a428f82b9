import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { AgentFailure, InfraFailure } from "@usine/core/attempt/failure"
import type { Submission } from "@usine/core/event/Submission"
import { type RunId, runIdOf } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { loopPolicy, startEngine, submission, tempLedger } from "./support/engine"
import { settle } from "./support/settle"

/** Deterministic randomness: the same seed gives the same soak. */
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7)

/** The Run may have closed since the snapshot the action was chosen from (a timeout, a fiber): that is a refusal. */
const raced = <A, E extends { readonly _tag: string }>(action: Effect.Effect<A, E>) =>
  action.pipe(
    Effect.asVoid,
    Effect.catchIf((e) => e._tag === "RunStateConflict", () => Effect.void)
  )

const LOOPS = ["build", "review", "gated", "nightly"] as const
const ITEMS = 100
const MAX_CYCLES = 3

describe("RunEngine soak", () => {
  it.scoped("1,000 Runs across Loops and Items with random outcomes keep the ledger's invariants", () =>
    Effect.gen(function*() {
      const random = mulberry32(20261016)
      const memory = yield* InMemoryExecutor.make
      memory.scriptOthers((run, attempt) => {
        const roll = (hash(attempt.id) >>> 0) % 100
        const after = `${roll % 13} minutes` as const
        if (roll < 62) return Script.succeed(after)
        if (roll < 80) return Script.fail(new InfraFailure({ reason: "flaky network", evidence: "" }), after)
        if (roll < 94) return Script.fail(new AgentFailure({ reason: "tests kept failing", evidence: "" }), after)
        return Script.hang
      })
      const { engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: {
          loops: {
            build: loopPolicy(),
            review: loopPolicy({ maxAttemptMinutes: 20, workers: ["w2", "w3"] }),
            gated: loopPolicy({ approvalRequired: true, approvalTimeoutMinutes: 30 }),
            nightly: loopPolicy({ maxAttemptMinutes: 20 })
          },
          workers: [
            { name: "w1", maxConcurrentAttempts: 12, agents: ["codex"] },
            { name: "w2", maxConcurrentAttempts: 8, agents: ["codex", "claude"] },
            { name: "w3", maxConcurrentAttempts: 6, agents: ["claude"] }
          ]
        }
      })

      const submitted: Array<Submission> = []
      const retried = new Map<RunId, number>()
      let opened = 0
      let received = 0
      const outcomes = { Claimed: 0, Queued: 0, Ignored: 0, CycleBlocked: 0 }

      const operate = Effect.gen(function*() {
        const open = yield* store.openRuns
        const pairs = new Set<string>()
        for (const run of open) {
          const pair = `${run.loop} ${run.itemKey}`
          assert.isFalse(pairs.has(pair), `two open Runs for ${pair}`)
          pairs.add(pair)
          const roll = random()
          if (run.state._tag === "Waiting" && roll < 0.5) yield* raced(engine.approve(run.id))
          else if (roll < 0.03) yield* raced(engine.cancel(run.id))
        }
      })

      while (opened < 1000) {
        const loop = LOOPS[Math.floor(random() * LOOPS.length)]!
        const number = 1 + Math.floor(random() * ITEMS)
        const s0 = submission({ loop, number, receivedAt: 0 })
        const generation = yield* store.generation(s0.itemKey)
        const s = submission({
          loop,
          number,
          receivedAt: ++received,
          content: `${received}`,
          agent: loop === "review" && random() < 0.5 ? "claude" : "codex",
          generation,
          ...(loop === "nightly" ? {} : { maxCycles: MAX_CYCLES })
        })
        submitted.push(s)
        const claim = yield* engine.submit(s)
        outcomes[claim._tag]++
        if (claim._tag === "Claimed" && claim.opened) opened++
        if (claim._tag === "CycleBlocked" && random() < 0.5) yield* engine.resetCycleBudget(s.itemKey)
        if (received % 5 === 0) {
          yield* TestClock.adjust("1 minute")
          yield* settle
        }
        if (received % 50 === 0) {
          yield* operate
          const failed = (yield* Effect.forEach(submitted.slice(-50), (x) =>
            store.getRun(runIdOf(x.eventId)).pipe(Effect.option))).flatMap((o) => (o._tag === "Some" ? [o.value] : []))
          for (const run of failed) {
            if (run.state._tag !== "Failed" || random() < 0.5) continue
            // Refused while another Run of the pair is open: the ledger keeps one open Run per Loop and Item.
            const reopened = yield* engine.retry(run.id).pipe(Effect.either)
            if (reopened._tag === "Left") {
              assert.strictEqual(reopened.left._tag, "RunStateConflict")
              continue
            }
            retried.set(run.id, (retried.get(run.id) ?? 0) + 1)
          }
        }
      }

      // Wind down: approve or let approvals expire, cancel what hangs, until nothing is open.
      for (let round = 0; round < 50; round++) {
        const open = yield* store.openRuns
        if (open.length === 0) break
        for (const run of open) {
          if (run.state._tag === "Waiting" && random() < 0.5) yield* raced(engine.approve(run.id))
          else if (run.state._tag === "Running" && round > 5) yield* raced(engine.cancel(run.id))
        }
        yield* TestClock.adjust("20 minutes")
        yield* settle
      }
      assert.deepStrictEqual(yield* store.openRuns, [], "every Run closed")

      // The ledger's invariants, over every Run an Event opened.
      const runs: Array<Run> = []
      for (const s of submitted) {
        const found = yield* store.getRun(runIdOf(s.eventId)).pipe(Effect.option)
        if (found._tag === "Some") runs.push(found.value)
      }
      assert.isAtLeast(runs.length, 1000)
      const executed = new Set(memory.executions)
      assert.strictEqual(executed.size, memory.executions.length, "no Attempt executed twice")
      const budgets = new Map<string, number>()
      const seen = { autoRetried: 0, operatorRetried: retried.size, RunawayFailure: 0, Superseded: 0, ApprovalTimedOut: 0, approved: 0 }
      for (const run of runs) {
        if (run.state._tag === "Canceled" && run.state.reason._tag === "Superseded") seen.Superseded++
        if (run.state._tag === "Canceled" && run.state.reason._tag === "ApprovalTimedOut") seen.ApprovalTimedOut++
        const transitions = yield* store.transitions(run.id)
        assert.strictEqual(transitions[0]?.from, undefined)
        assert.strictEqual(transitions[0]?.to, "Pending")
        for (let i = 1; i < transitions.length; i++) {
          assert.strictEqual(transitions[i]!.from, transitions[i - 1]!.to, `run ${run.id}: transitions chain`)
          assert.notStrictEqual(transitions[i]!.from, transitions[i]!.to, `run ${run.id}: one row per change`)
        }
        assert.strictEqual(transitions.at(-1)!.to, run.state._tag, `run ${run.id}: last row is its state`)
        const operatorRetries = transitions.filter((t) => t.from === "Failed" && t.to === "Running").length
        assert.strictEqual(operatorRetries, retried.get(run.id) ?? 0)
        if (transitions.some((t) => t.from === "Waiting" && t.to === "Queued")) seen.approved++

        const attempts = yield* store.attempts(run.id)
        attempts.forEach((a, i) => assert.strictEqual(a.number, i + 1, `run ${run.id}: attempt numbers`))
        if (attempts.length > 1 + operatorRetries) seen.autoRetried++
        for (const a of attempts) {
          if (a.outcome?._tag === "Failed" && a.outcome.failure._tag === "RunawayFailure") seen.RunawayFailure++
          assert.isDefined(a.outcome, `run ${run.id}: a closed Run has no open Attempt`)
          if (a.outcome?._tag !== "Canceled") assert.isTrue(executed.has(a.id), `${a.id} was executed`)
        }
        if (run.state._tag === "Succeeded") assert.strictEqual(attempts.at(-1)?.outcome?._tag, "Succeeded")
        const reserved = run.state._tag !== "Canceled" || attempts.length > 0
        if (reserved && run.loop !== "nightly") {
          const key = `${run.loop} ${run.itemKey} ${run.generation}`
          budgets.set(key, (budgets.get(key) ?? 0) + 1)
        }
      }
      for (const [key, count] of budgets) assert.isAtMost(count, MAX_CYCLES, `budget of ${key}`)
      const ledgerAttempts = new Set<string>()
      for (const run of runs) for (const a of yield* store.attempts(run.id)) ledgerAttempts.add(a.id)
      for (const id of executed) assert.isTrue(ledgerAttempts.has(id), `${id} is in the ledger`)
      // The soak exercised what it claims to: queues, budgets, retries, timeouts, supersedes, approvals.
      assert.isAtLeast(outcomes.Queued, 20)
      assert.isAtLeast(outcomes.CycleBlocked, 5)
      assert.isAtLeast(executed.size, 500)
      assert.isAtLeast(seen.autoRetried, 20)
      assert.isAtLeast(seen.operatorRetried, 5)
      assert.isAtLeast(seen.RunawayFailure, 5)
      assert.isAtLeast(seen.Superseded, 50)
      assert.isAtLeast(seen.ApprovalTimedOut + seen.approved, 20)
    }), { timeout: 360_000 }) // CPU-bound fixed work (~100 s alone on one core): the guard is for a hang, sized for a loaded 2-core CI machine
})
