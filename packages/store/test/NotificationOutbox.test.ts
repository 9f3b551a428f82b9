import { assert } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import * as Outbox from "@usine/store/NotificationOutbox"
import { type NotifiableFact, NotificationOutbox } from "@usine/store/NotificationOutbox"
import { openedRun, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"

const world = (engine: LedgerEngine) => Outbox.layer.pipe(Layer.provideMerge(testLedger(engine)))
const toSlack = (fact: NotifiableFact) => [{ endpoint: "slack:1", event: fact.event, subject: fact.runId, body: { text: fact.event } }]

describeEngines("NotificationOutbox", (engine) => {
  layer(world(engine))("outbox", (it) => {
    it.effect("announces what the ledger records after the first look, once per endpoint, event and Run; retries until delivered", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const outbox = yield* NotificationOutbox
        const gated = (number: number) =>
          Effect.flatMap(Effect.map(store.recordAndClaim(submission({ number, approvalRequired: true })), openedRun), (run) =>
            store.parkForApproval(run.id))
        const before = yield* gated(1)
        assert.strictEqual(yield* outbox.advance(toSlack), 0, "the first look places the cursors: history is not announced")
        const after = yield* gated(2)
        assert.strictEqual(yield* outbox.advance(toSlack), 1)
        assert.strictEqual(yield* outbox.advance(toSlack), 0, "a second look finds nothing new")
        yield* outbox.enqueue({ endpoint: "slack:1", event: "approval_needed", subject: after.id, body: { text: "again" } })
        const [due, ...rest] = yield* outbox.due(0, 10)
        assert.deepStrictEqual(rest, [], "one notification, the repeat ignored")
        assert.deepStrictEqual([due?.event, due?.body], ["approval_needed", { text: "approval_needed" }])
        assert.notStrictEqual(before.id, after.id)

        for (let tries = 1; tries <= 3; tries++) yield* outbox.failed(due!.id, `refused ${tries}`, 5_000)
        assert.deepStrictEqual(yield* outbox.due(4_999, 10), [], "not before its next try")
        assert.deepStrictEqual((yield* outbox.failing(3)).map((f) => [f.endpoint, f.tries, f.lastError]), [["slack:1", 3, "refused 3"]])
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual((yield* outbox.due(5_000, 10))[0]?.tries, 3)
        yield* outbox.delivered(due!.id, 5_000)
        assert.deepStrictEqual(yield* outbox.due(10_000, 10), [])
        assert.deepStrictEqual(yield* outbox.failing(1), [], "a delivered notification clears the endpoint")
      }))

    it.effect("a failed Run is announced; a success only when its last Attempt opened a pull request, with its URL", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const outbox = yield* NotificationOutbox
        yield* outbox.advance(toSlack)
        const facts: Array<NotifiableFact> = []
        const finish = (number: number, outcome: AttemptFailed | AttemptSucceeded) =>
          Effect.gen(function* () {
            const run = openedRun(yield* store.recordAndClaim(submission({ number })))
            const begun = yield* store.beginAttempt(run.id, { live: () => true })
            if (begun._tag !== "Started") return yield* Effect.dieMessage("expected Started")
            yield* store.finishAttempt(begun.attempt.id, outcome)
            return run.id
          })
        const failed = yield* finish(10, new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) }))
        yield* finish(11, new AttemptSucceeded({ result: { commits: ["a"], branch: "usine/x" } }))
        const opened = yield* finish(12, new AttemptSucceeded({ result: { commits: ["a"], pullRequestUrl: "https://github.example/acme/widgets/pull/5" } }))
        yield* outbox.advance((fact) => {
          facts.push(fact)
          return []
        })
        assert.deepStrictEqual(facts.map((f) => [f.event, f.runId]), [["failed", failed], ["pull_request_opened", opened]])
        assert.strictEqual(facts[1]?.detail, "https://github.example/acme/widgets/pull/5")
      }))
  })
})
