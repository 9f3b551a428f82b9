import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AgentFailure, InfraFailure } from "@usine/core/attempt/failure"
import { AttemptCanceled, AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { AttemptId, attemptIdOf } from "@usine/core/ids/AttemptId"
import { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"
import { openedRun, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

const infra = new AttemptFailed({ failure: new InfraFailure({ reason: "ssh dropped" }) })
const agent = new AttemptFailed({ failure: new AgentFailure({ reason: "tests fail" }) })
const success = new AttemptSucceeded({ result: { commits: ["c1"], pullRequestNumber: 12 } })

const opened = (hash: string, approvalRequired = false) =>
  Effect.flatMap(runLedger, (store) => store.recordAndClaim(submission({ number: hash.charCodeAt(0), hash, approvalRequired }))).pipe(Effect.map(openedRun))

describeEngines("Attempts", (engine) => {
  layer(testLedger(engine))("beginAttempt and finishAttempt", (it) => {
    it.effect("Pending → Running with Attempt 1, then Succeeded with the outcome stored", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("a")
        const begun = yield* store.beginAttempt(run.id, { live: () => true, worker: "local" })
        assert.strictEqual(begun._tag, "Started")
        if (begun._tag !== "Started") return
        assert.strictEqual(begun.run.state._tag, "Running")
        assert.strictEqual(begun.attempt.id, attemptIdOf(run.id, 1))
        assert.strictEqual(begun.attempt.worker, "local")
        yield* store.recordSession(begun.attempt.id, "pid:42")
        const decision = yield* store.finishAttempt(begun.attempt.id, success)
        assert.deepStrictEqual([decision._tag, decision.run.state._tag], ["Closed", "Succeeded"])
        const [attempt] = yield* store.attempts(run.id)
        assert.deepStrictEqual(attempt?.outcome, success)
        assert.strictEqual(attempt?.session, "pid:42")
        assert.deepStrictEqual(
          (yield* store.transitions(run.id)).map((t) => [t.from, t.to, t.actor]),
          [[undefined, "Pending", "trigger"], ["Pending", "Running", "engine"], ["Running", "Succeeded", "engine"]]
        )
        const late = yield* Effect.flip(store.recordSession(begun.attempt.id, "late"))
        assert.instanceOf(late, AttemptNotOpen)
        assert.strictEqual(late.attemptId, begun.attempt.id)
        assert.strictEqual((yield* Effect.flip(store.finishAttempt(begun.attempt.id, success)))._tag, "AttemptNotOpen")
        assert.strictEqual((yield* Effect.flip(store.beginAttempt(run.id, { live: () => true })))._tag, "RunStateConflict")
      }))

    it.effect("an InfraFailure below Attempt 3 retries in the same Running Run; at 3 the Run Fails", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("b")
        for (const number of [1, 2]) {
          const begun = yield* store.beginAttempt(run.id, { live: () => true })
          assert.isTrue(begun._tag === "Started" && begun.attempt.number === number)
          if (begun._tag !== "Started") return
          const decision = yield* store.finishAttempt(begun.attempt.id, infra)
          assert.deepStrictEqual([decision._tag, decision.run.state._tag], ["RetryAttempt", "Running"])
        }
        const third = yield* store.beginAttempt(run.id, { live: () => true })
        if (third._tag !== "Started") return assert.fail("expected Started")
        assert.strictEqual(third.attempt.number, 3)
        const decision = yield* store.finishAttempt(third.attempt.id, infra)
        assert.deepStrictEqual([decision._tag, decision.run.state._tag], ["Closed", "Failed"])
        // Only the opening, the start and the failure changed the state.
        assert.deepStrictEqual((yield* store.transitions(run.id)).map((t) => t.to), ["Pending", "Running", "Failed"])

        // Operator retry: Attempt numbers continue, and the cap counts numbers, so an InfraFailure fails again.
        yield* store.retry(run.id)
        const fourth = yield* store.beginAttempt(run.id, { live: () => true })
        if (fourth._tag !== "Started") return assert.fail("expected Started")
        assert.strictEqual(fourth.attempt.id, attemptIdOf(run.id, 4))
        assert.strictEqual((yield* store.finishAttempt(fourth.attempt.id, infra)).run.state._tag, "Failed")
      }))

    it.effect("any other failure closes the Run as Failed at once", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("c")
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") return assert.fail("expected Started")
        const decision = yield* store.finishAttempt(begun.attempt.id, agent)
        assert.deepStrictEqual([decision._tag, decision.run.state._tag], ["Closed", "Failed"])
      }))

    it.effect("a restart: a live open Attempt is reattached; a gone one closes as InfraFailure and the next starts", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("d")
        const first = yield* store.beginAttempt(run.id, { live: () => true })
        if (first._tag !== "Started") return assert.fail("expected Started")
        yield* store.recordSession(first.attempt.id, "pid:1")
        const seen: Array<string> = []
        const reattached = yield* store.beginAttempt(run.id, { live: (a) => (seen.push(a.id), true) })
        assert.deepStrictEqual([reattached._tag, seen], ["Reattached", [first.attempt.id]])
        if (reattached._tag === "Reattached") assert.strictEqual(reattached.attempt.id, first.attempt.id)

        const second = yield* store.beginAttempt(run.id, { live: () => false })
        assert.isTrue(second._tag === "Started" && second.attempt.number === 2)
        const [closed] = yield* store.attempts(run.id)
        assert.strictEqual(closed?.outcome?._tag, "Failed")
        if (closed?.outcome?._tag === "Failed") assert.strictEqual(closed.outcome.failure.reason, "session gone after restart")
        if (second._tag === "Started") yield* store.recordSession(second.attempt.id, "pid:2")
        const third = yield* store.beginAttempt(run.id, { live: () => false })
        if (third._tag === "Started") yield* store.recordSession(third.attempt.id, "pid:3")
        const failed = yield* store.beginAttempt(run.id, { live: () => false })
        assert.deepStrictEqual([failed._tag, failed.run.state._tag], ["Failed", "Failed"])
        assert.strictEqual((yield* store.attempts(run.id)).length, 3)
        assert.isTrue((yield* store.attempts(run.id)).every((a) => a.outcome !== undefined))
      }))

    it.effect("an Attempt the daemon stopped before its agent started is retried at once and not counted, up to 5 such stops (ADR 0110)", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("g")
        // Two restarts while Attempts were being prepared (no session recorded): each is retried.
        yield* store.beginAttempt(run.id, { live: () => true })
        for (const number of [2, 3]) {
          const next = yield* store.beginAttempt(run.id, { live: () => false })
          assert.isTrue(next._tag === "Started" && next.attempt.number === number, `Attempt ${number} started`)
        }
        const stopped = (yield* store.attempts(run.id)).slice(0, 2)
        for (const a of stopped) {
          assert.isTrue(
            a.outcome?._tag === "Failed" && a.outcome.failure._tag === "InfraFailure" && a.outcome.failure.kind === "DaemonStopped",
            JSON.stringify(a.outcome)
          )
        }
        // Attempts 3 and 4 fail on the infrastructure after their agent ran: both are retried, as Attempts 1 and 2 would be.
        const third = (yield* store.attempts(run.id))[2]!
        yield* store.recordSession(third.id, "pid:3")
        assert.strictEqual((yield* store.finishAttempt(third.id, infra))._tag, "RetryAttempt")
        const fourth = yield* store.beginAttempt(run.id, { live: () => true })
        if (fourth._tag !== "Started") return assert.fail("expected Started")
        yield* store.recordSession(fourth.attempt.id, "pid:4")
        assert.strictEqual((yield* store.finishAttempt(fourth.attempt.id, infra))._tag, "RetryAttempt")
        // Three more stops before an agent started: the fifth stop fails the Run, saying why.
        yield* store.beginAttempt(run.id, { live: () => true })
        for (const number of [6, 7]) {
          const next = yield* store.beginAttempt(run.id, { live: () => false })
          assert.isTrue(next._tag === "Started" && next.attempt.number === number, `Attempt ${number} started`)
        }
        const failed = yield* store.beginAttempt(run.id, { live: () => false })
        assert.deepStrictEqual([failed._tag, failed.run.state._tag], ["Failed", "Failed"])
        const last = (yield* store.transitions(run.id)).at(-1)
        assert.include(last?.reason ?? "", "the daemon stopped 5 times before this Run's agent started")
      }))

    it.effect("a Pending Run that needs approval, and a Waiting Run, cannot start", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("e", true)
        const early = yield* Effect.flip(store.beginAttempt(run.id, { live: () => true }))
        assert.strictEqual(early._tag, "RunStateConflict")
        yield* store.parkForApproval(run.id)
        assert.strictEqual((yield* Effect.flip(store.beginAttempt(run.id, { live: () => true })))._tag, "RunStateConflict")
        yield* store.approve(run.id)
        assert.strictEqual((yield* store.beginAttempt(run.id, { live: () => true }))._tag, "Started")
      }))

    it.effect("a Canceled outcome is left to cancel; after the cancel it is no news", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("f")
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") return assert.fail("expected Started")
        const outcome = new AttemptCanceled({ reason: "stopped" })
        assert.strictEqual((yield* Effect.flip(store.finishAttempt(begun.attempt.id, outcome)))._tag, "RunStateConflict")
        assert.isTrue(Option.isSome(yield* store.cancel(run.id).pipe(Effect.map((r) => r.attempt))))
        const decision = yield* store.finishAttempt(begun.attempt.id, outcome)
        assert.deepStrictEqual([decision._tag, decision.run.state._tag], ["Closed", "Canceled"])
      }))

    it.effect("an unknown Attempt is not open", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        assert.strictEqual((yield* Effect.flip(store.finishAttempt(AttemptId("x/main/1"), success)))._tag, "AttemptNotOpen")
        assert.strictEqual((yield* Effect.flip(store.recordSession(AttemptId("x/main/1"), "s")))._tag, "AttemptNotOpen")
      }))
  })

  layer(testLedger(engine))("transcript", (it) => {
    it.effect("numbers rows per Attempt from 1 and reads after a sequence number", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = yield* opened("g")
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") return assert.fail("expected Started")
        const id = begun.attempt.id
        assert.strictEqual(yield* store.appendTranscript(id, []), 0)
        assert.strictEqual(
          yield* store.appendTranscript(id, [
            { kind: "assistant", text: "hello", at: 1 },
            { kind: "tool_call", text: "ls", tool: "shell", at: 2 }
          ]),
          2
        )
        const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, costUsd: 0.01 }
        assert.strictEqual(yield* store.appendTranscript(id, [{ kind: "usage", text: "", usage, at: 3 }]), 3)
        assert.deepStrictEqual(yield* store.transcript(id, 1), [
          { seq: 2, kind: "tool_call", text: "ls", tool: "shell", at: 2 },
          { seq: 3, kind: "usage", text: "", usage, at: 3 }
        ])
        assert.strictEqual((yield* store.transcript(id)).length, 3)
      }))
  })
})
