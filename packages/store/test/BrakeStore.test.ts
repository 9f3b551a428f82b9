import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { BrakeStore, type UsageOwner } from "@usine/store/BrakeStore"
import { ItemStore } from "@usine/store/ItemStore"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { begin, openedRun, REPOSITORY, submission } from "./fixtures/testLedger"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"
import type { RunPorts } from "@usine/store/RunPorts"
import { runLedger } from "@usine/testkit/runLedger"

const DAY = 86_400_000

const ledger = (engine: LedgerEngine, place: string) =>
  Layer.mergeAll(SqlRunStore.layer, SqlItemStore.layer, SqlBrakeStore.layer).pipe(Layer.provideMerge(engine.open(place)))

/** Runs `body` with the stores on the ledger at `place`; the scope closes the ledger, as a daemon exit would. */
const withLedger = <A, E>(engine: LedgerEngine, place: string, body: Effect.Effect<A, E, BrakeStore | RunPorts | ItemStore>) =>
  Effect.scoped(Effect.flatMap(Layer.build(ledger(engine, place)), (context) => Effect.provide(body, context)))

/** The stores on a fresh ledger of the engine. */
const inTempLedger = <A, E>(engine: LedgerEngine, body: Effect.Effect<A, E, BrakeStore | RunPorts | ItemStore>) =>
  Effect.flatMap(engine.place, (place) => withLedger(engine, place, body))

const openRun = (number: number, hash = "h1") =>
  Effect.flatMap(runLedger, (store) => store.recordAndClaim(submission({ number, hash }))).pipe(Effect.map(openedRun))

const owner = (runId: RunId, n: number): UsageOwner => ({
  attemptId: attemptIdOf(runId, n),
  runId,
  loop: "start-dev",
  repository: REPOSITORY,
  agent: "codex"
})

const usage = (input: number, output: number, costUsd?: number) => ({
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: 0,
  ...(costUsd === undefined ? {} : { costUsd })
})

describeEngines("BrakeStore", (engine) => {
  it.scoped("counts each usage row's increase once, on the UTC day it arrives, and keeps it across a restart", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      yield* TestClock.setTime(DAY - 60_000)
      const runId = yield* withLedger(engine, file, Effect.gen(function* () {
        const brakes = yield* BrakeStore
        const run = yield* openRun(7)
        yield* begin(run.id)
        yield* brakes.recordUsage(owner(run.id, 1), usage(100, 10))
        yield* brakes.recordUsage(owner(run.id, 1), usage(100, 10))
        yield* brakes.recordUsage(owner(run.id, 1), usage(250, 30, 0.5))
        yield* TestClock.adjust("2 minutes")
        yield* brakes.recordUsage(owner(run.id, 1), usage(300, 40, 0.75))
        return run.id
      }))
      const [first, second] = yield* withLedger(engine, file, Effect.gen(function* () {
        const brakes = yield* BrakeStore
        return [yield* brakes.usageOfDays("1970-01-01", "1970-01-01"), yield* brakes.usageOfDays("1970-01-02", "1970-01-02")]
      }))
      assert.deepStrictEqual(first?.map((d) => [d.scope, d.name, d.usage]), [
        ["global", "", usage(250, 30, 0.5)],
        ["loop", "start-dev", usage(250, 30, 0.5)],
        ["repository", "acme/widgets", usage(250, 30, 0.5)]
      ])
      assert.deepStrictEqual(second?.find((d) => d.scope === "global")?.usage, usage(50, 10, 0.25))
      const perAttempt = yield* withLedger(engine, file, Effect.flatMap(BrakeStore, (brakes) => brakes.runUsage(runId)))
      assert.deepStrictEqual(perAttempt, [{ attemptId: attemptIdOf(runId, 1), number: 1, usage: usage(300, 40, 0.75) }])
    }))

  it.scoped("a no-progress streak parks the Item at the limit; progress or the operator clears it", () =>
    inTempLedger(engine, 
      Effect.gen(function* () {
        const brakes = yield* BrakeStore
        const item = itemKeyOf(REPOSITORY, 7)
        const none = (evidence: string) => ({ _tag: "NoProgress", evidence }) as const
        yield* brakes.recordProgress("start-dev", item, { _tag: "Progress", head: "abc", pullRequest: 9 }, 2)
        const once = yield* brakes.recordProgress("start-dev", item, none("no commit"), 2)
        assert.deepStrictEqual([once.streak, once.parkedAt, once.lastHead], [1, undefined, "abc"])
        yield* TestClock.setTime(5_000)
        const twice = yield* brakes.recordProgress("start-dev", item, none("head still abc"), 2)
        assert.deepStrictEqual([twice.streak, twice.parkedAt, twice.evidence], [2, 5_000, ["no commit", "head still abc"]])
        assert.deepStrictEqual((yield* brakes.parked(10)).map((p) => p.itemKey), [item])
        assert.isFalse(yield* brakes.clearPark("other-loop", item))
        assert.isTrue(yield* brakes.clearPark("start-dev", item))
        assert.deepStrictEqual(yield* brakes.parked(10), [])
        yield* brakes.recordProgress("start-dev", item, none("a"), 1)
        yield* brakes.recordProgress("start-dev", item, { _tag: "Progress", head: "def", pullRequest: undefined }, 1)
        const after = Option.getOrThrow(yield* brakes.progress("start-dev", item))
        assert.deepStrictEqual([after.streak, after.parkedAt, after.lastHead, after.lastPullRequest], [0, undefined, "def", 9])
        const off = yield* brakes.recordProgress("review", item, none("x"), 0)
        assert.strictEqual(off.parkedAt, undefined, "max 0 never parks")
      })
    ))

  it.scoped("a Loop's pull request counts as open until its projection shows it merged or closed", () =>
    inTempLedger(engine, 
      Effect.gen(function* () {
        const brakes = yield* BrakeStore
        const items = yield* ItemStore
        const run = yield* openRun(7)
        const pr = (number: number, state: string) =>
          items.saveProjection({
            itemKey: itemKeyOf(REPOSITORY, number),
            repository: REPOSITORY,
            number,
            payload: { __typename: "PullRequest", number, state },
            contentHash: `${number}${state}`,
            observedAt: 1
          })
        yield* brakes.recordPullRequest("start-dev", REPOSITORY, 10, run.id)
        yield* brakes.recordPullRequest("start-dev", REPOSITORY, 11, run.id)
        yield* brakes.recordPullRequest("start-dev", REPOSITORY, 11, run.id)
        yield* brakes.recordPullRequest("other", REPOSITORY, 12, run.id)
        const numbers = Effect.map(brakes.openPullRequests("start-dev"), (open) => open.map((p) => `${p.repository}#${p.number}`))
        assert.deepStrictEqual(yield* numbers, ["acme/widgets#10", "acme/widgets#11"], "not polled yet: open")
        yield* pr(10, "OPEN")
        yield* pr(11, "MERGED")
        assert.deepStrictEqual(yield* numbers, ["acme/widgets#10"])
        yield* pr(10, "CLOSED")
        assert.deepStrictEqual(yield* numbers, [])
        assert.strictEqual((yield* brakes.openPullRequests("other")).length, 1)
      })
    ))

  it.scoped("holds: a Run's shows only while it is open; an Agent's keeps the later reset", () =>
    inTempLedger(engine, 
      Effect.gen(function* () {
        const brakes = yield* BrakeStore
        const store = yield* runLedger
        const held = yield* openRun(7)
        yield* brakes.holdRun({ runId: held.id, kind: "DailyCap", reason: "cap", until: 100, since: 1 })
        yield* brakes.holdRun({ runId: held.id, kind: "DailyCap", reason: "still the cap", until: 100, since: 5 })
        const hold = Option.getOrThrow(yield* brakes.runHold(held.id))
        assert.deepStrictEqual([hold.reason, hold.since], ["still the cap", 1], "the same hold keeps its start")
        const [listed] = yield* brakes.heldRuns(10)
        assert.deepStrictEqual([listed?.loop, listed?.number, listed?.state, listed?.kind], ["start-dev", 7, "Pending", "DailyCap"])
        yield* store.cancel(held.id)
        assert.deepStrictEqual(yield* brakes.heldRuns(10), [])
        assert.isTrue(Option.isNone(yield* brakes.runHold(held.id)))

        const attemptId = attemptIdOf(held.id, 1)
        yield* brakes.holdAgent({ agent: "codex", until: 2_000, reason: "quota", attemptId, at: 1 })
        yield* brakes.holdAgent({ agent: "codex", until: 1_000, reason: "earlier", attemptId, at: 2 })
        assert.deepStrictEqual((yield* brakes.agentHolds(0)).map((h) => [h.agent, h.until, h.reason]), [["codex", 2_000, "quota"]])
        assert.deepStrictEqual(yield* brakes.agentHolds(2_000), [], "a hold ends at its reset")
      })
    ))

  it.scoped("a cap raise holds for its day only, and a repeat changes nothing", () =>
    inTempLedger(engine, 
      Effect.gen(function* () {
        const brakes = yield* BrakeStore
        yield* brakes.raiseCap({ day: "1970-01-01", scope: "loop", name: "start-dev", tokens: 100, costUsd: 0 })
        yield* brakes.raiseCap({ day: "1970-01-01", scope: "loop", name: "start-dev", tokens: 150, costUsd: 1.5 })
        yield* brakes.raiseCap({ day: "1970-01-01", scope: "loop", name: "start-dev", tokens: 150, costUsd: 1.5 })
        yield* brakes.raiseCap({ day: "1970-01-01", scope: "global", name: "", tokens: 7, costUsd: 0 })
        const raises = yield* brakes.raises("1970-01-01")
        assert.deepStrictEqual(
          raises.map((r) => [r.scope, r.name, r.tokens, r.costUsd]).sort(),
          [["global", "", 7, 0], ["loop", "start-dev", 150, 1.5]]
        )
        assert.deepStrictEqual(yield* brakes.raises("1970-01-02"), [])
      })
    ))
})

describeEngines("BrakeStore and forged usage (ADR 0086)", (engine) => {
  it.scoped("a total that goes negative lowers no daily figure, and the honest total after it adds only its growth", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const brakes = yield* BrakeStore
      const run = yield* openRun(9)
      yield* begin(run.id)
      yield* brakes.recordUsage(owner(run.id, 1), usage(900, 30))
      yield* brakes.recordUsage(owner(run.id, 1), usage(-4_998_200, -10))
      const [global] = (yield* brakes.usageOfDays("1970-01-01", "1970-01-01")).filter((d) => d.scope === "global")
      assert.deepStrictEqual(global?.usage, usage(900, 30), "the daily figure never goes down")
    })))
})
