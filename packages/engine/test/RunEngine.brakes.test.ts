import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { InfraFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { InMemoryExecutor, Script } from "@usine/testkit/InMemoryExecutor"
import { defaultPolicies, loopPolicy, REPOSITORY, runOf, startEngine, submission, tempLedger, untilState } from "./support/engine"
import { settle, until } from "./support/settle"

const commits = (...shas: ReadonlyArray<string>) => ({ result: { commits: shas, summary: "pushed" } })

describe("RunEngine brakes", () => {
  it.scoped("a no-progress agent is parked after two Attempts on an Item and never runs a third time by itself", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { build: loopPolicy({ maxNoProgress: 2 }) } }
      })
      const event = (number: number, content: string, receivedAt: number) => submission({ number, content, receivedAt })
      const runs = [event(5, "a", 1), event(5, "b", 2), event(5, "c", 3)]
      for (const s of runs.slice(0, 2)) {
        yield* engine.submit(s)
        yield* untilState(store, runOf(s), "Succeeded")
      }
      const [parked] = yield* brakes.parked(10)
      assert.deepStrictEqual([parked?.itemKey, parked?.streak], [itemKeyOf(REPOSITORY, 5), 2])
      assert.deepStrictEqual(parked?.evidence, ["succeeded without a commit", "succeeded without a commit"])

      const third = runs[2]!
      yield* engine.submit(third)
      yield* until("third held", () => Effect.map(brakes.runHold(runOf(third)), Option.isSome))
      yield* TestClock.adjust("1 hour")
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(third))).state._tag, "Pending", "held, not failed")
      assert.strictEqual(memory.executions.length, 2, "never a third Attempt without the operator")
      const hold = Option.getOrThrow(yield* brakes.runHold(runOf(third)))
      assert.strictEqual(hold.kind, "NoProgress")
      assert.include(hold.reason, "parked after 2 Attempts without progress")

      // Same head twice is no progress; a new head resets the streak; another Item is not parked.
      const sameHead = [event(6, "a", 4), event(6, "b", 5), event(6, "c", 6), event(6, "d", 7)]
      memory.script(runOf(sameHead[0]!), Script.succeed(undefined, commits("h1")))
      memory.script(runOf(sameHead[1]!), Script.succeed(undefined, commits("h1")))
      memory.script(runOf(sameHead[2]!), Script.succeed(undefined, commits("h1", "h2")))
      memory.script(runOf(sameHead[3]!), Script.succeed(undefined, commits("h1", "h2")))
      for (const s of sameHead) {
        yield* engine.submit(s)
        yield* untilState(store, runOf(s), "Succeeded")
      }
      const six = Option.getOrThrow(yield* brakes.progress("build", itemKeyOf(REPOSITORY, 6)))
      assert.deepStrictEqual([six.streak, six.lastHead, six.parkedAt], [1, "h2", undefined])

      const cleared = yield* engine.clearNoProgress("build", itemKeyOf(REPOSITORY, 5))
      assert.isTrue(cleared.cleared)
      yield* untilState(store, runOf(third), "Succeeded")
      assert.isFalse((yield* engine.clearNoProgress("build", itemKeyOf(REPOSITORY, 5))).cleared, "a repeat is a no-op")
    }))

  it.scoped("a quota error with a reset time holds the retry and every new Attempt of that Agent until then", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, store } = yield* startEngine({ ledger: yield* tempLedger, executor: memory })
      const quota = new InfraFailure({ reason: "the model provider is rate limiting the agent", retryAt: 3_600_000 })
      const limited = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(limited), Script.fail(quota), Script.succeed())
      yield* engine.submit(limited)
      yield* until("quota hit", () => Effect.map(brakes.agentHolds(0), (holds) => holds.length === 1))

      const sameAgent = submission({ number: 2, receivedAt: 2 })
      const otherAgent = submission({ number: 3, receivedAt: 3, agent: "claude" })
      yield* engine.submit(sameAgent)
      yield* engine.submit(otherAgent)
      yield* untilState(store, runOf(otherAgent), "Succeeded")
      yield* TestClock.adjust("59 minutes")
      yield* settle
      assert.deepStrictEqual(memory.executions, [attemptIdOf(runOf(limited), 1), attemptIdOf(runOf(otherAgent), 1)])
      const held = yield* brakes.heldRuns(10)
      assert.deepStrictEqual(held.map((h) => [h.runId, h.kind, h.until, h.state]), [
        [runOf(limited), "AgentQuota", 3_600_000, "Running"],
        [runOf(sameAgent), "AgentQuota", 3_600_000, "Pending"]
      ])
      assert.include(held[0]?.reason ?? "", "waiting for quota reset at 1970-01-01T01:00:00.000Z")

      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(limited), "Succeeded")
      yield* untilState(store, runOf(sameAgent), "Succeeded")
      assert.strictEqual((yield* store.attempts(runOf(limited))).length, 2, "the retry spent no Attempt while waiting")
      assert.deepStrictEqual(yield* brakes.heldRuns(10), [])
    }))

  it.scoped("a WIP limit holds new Runs while the Loop's pull requests are open; a merge seen by polling frees the slot", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, items, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { build: loopPolicy({ maxOpenPullRequests: 1 }), review: loopPolicy() } }
      })
      const opener = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(opener), Script.succeed(undefined, { result: { commits: ["c1"], pullRequestNumber: 41 } }))
      yield* engine.submit(opener)
      yield* untilState(store, runOf(opener), "Succeeded")
      // A pull request Loop's Run on the pull request itself opens nothing.
      const review = submission({ loop: "review", number: 41, receivedAt: 2 })
      memory.script(runOf(review), Script.succeed(undefined, { result: { commits: ["c1"], pullRequestNumber: 41 } }))
      yield* engine.submit(review)
      yield* untilState(store, runOf(review), "Succeeded")

      const waiting = submission({ number: 2, receivedAt: 3 })
      yield* engine.submit(waiting)
      yield* until("held", () => Effect.map(brakes.runHold(runOf(waiting)), Option.isSome))
      const hold = Option.getOrThrow(yield* brakes.runHold(runOf(waiting)))
      assert.deepStrictEqual([hold.kind, hold.until], ["OpenPullRequests", undefined])
      assert.include(hold.reason, "acme/app#41")
      const pull = (state: string) =>
        items.saveProjection({
          itemKey: itemKeyOf(REPOSITORY, 41),
          repository: REPOSITORY,
          number: 41,
          payload: { __typename: "PullRequest", number: 41, state, merged: state === "MERGED" },
          contentHash: state,
          observedAt: 1
        })
      yield* pull("OPEN")
      yield* TestClock.adjust("5 minutes")
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(waiting))).state._tag, "Pending")
      assert.strictEqual(memory.executions.length, 2)
      yield* pull("MERGED")
      yield* TestClock.adjust("1 minute")
      yield* untilState(store, runOf(waiting), "Succeeded")
      assert.deepStrictEqual(yield* brakes.openPullRequests("review"), [])
    }))

  it.scoped("wakeHeld makes a WIP-held Run look again at once: a pull request closed without a merge frees the slot too", () =>
    Effect.gen(function*() {
      const memory = yield* InMemoryExecutor.make
      const { brakes, engine, items, store } = yield* startEngine({
        ledger: yield* tempLedger,
        executor: memory,
        policies: { ...defaultPolicies, loops: { build: loopPolicy({ maxOpenPullRequests: 1 }) } }
      })
      const opener = submission({ number: 1, receivedAt: 1 })
      memory.script(runOf(opener), Script.succeed(undefined, { result: { commits: ["c1"], pullRequestNumber: 41 } }))
      yield* engine.submit(opener)
      yield* untilState(store, runOf(opener), "Succeeded")
      const waiting = submission({ number: 2, receivedAt: 2 })
      yield* engine.submit(waiting)
      yield* until("held", () => Effect.map(brakes.runHold(runOf(waiting)), Option.isSome))

      yield* engine.wakeHeld
      yield* settle
      assert.strictEqual((yield* store.getRun(runOf(waiting))).state._tag, "Pending", "a wake with the pull request open holds again")
      yield* items.saveProjection({
        itemKey: itemKeyOf(REPOSITORY, 41),
        repository: REPOSITORY,
        number: 41,
        payload: { __typename: "PullRequest", number: 41, state: "CLOSED", merged: false },
        contentHash: "closed",
        observedAt: 1
      })
      yield* engine.wakeHeld
      // No TestClock move: the wake, not the minute-long recheck, starts the Run.
      yield* untilState(store, runOf(waiting), "Succeeded")
      assert.deepStrictEqual(yield* brakes.openPullRequests("build"), [])
    }))
})
