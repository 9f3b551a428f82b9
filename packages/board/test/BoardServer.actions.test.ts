import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

describe("Board actions", () => {
  it.scoped("approve: Waiting starts, a repeat is a no-op, any other state is 409 with the reason", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const gated = submission({ number: 1, loop: "gated" })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      const first = yield* promise(() => browser.act(`/runs/${runOf(gated)}/approve`))
      assert.deepStrictEqual([first.status, first.body.approved], [200, true])
      yield* untilState(store, runOf(gated), "Succeeded")
      const again = yield* promise(() => browser.act(`/runs/${runOf(gated)}/approve`))
      assert.deepStrictEqual([again.status, again.body.approved, again.body.state], [200, false, "Succeeded"])
      assert.strictEqual(memory.executions.length, 1, "approving twice runs once")

      const free = submission({ number: 2 })
      memory.script(runOf(free), Script.hang)
      yield* engine.submit(free)
      yield* untilState(store, runOf(free), "Running")
      const conflict = yield* promise(() => browser.act(`/runs/${runOf(free)}/approve`))
      assert.strictEqual(conflict.status, 409)
      assert.deepStrictEqual([conflict.body.error, conflict.body.state], ["RunStateConflict", "Running"])
      assert.match(String(conflict.body.message), /cannot approve run .*: it is Running/)

      const missing = yield* promise(() => browser.act(`/runs/${"0".repeat(32)}/approve`))
      assert.deepStrictEqual([missing.status, missing.body.error], [404, "RunNotFound"])
      const malformed = yield* promise(() => browser.act("/runs/nope/approve"))
      assert.deepStrictEqual([malformed.status, malformed.body.error, malformed.body.field], [400, "InvalidInput", "id"])
      assert.strictEqual(malformed.body.message, 'id: expected a run id (32 hex digits), got "nope"', "worded as a config problem")
      const plain = yield* promise(() => browser.post(`/runs/${runOf(free)}/approve`, {}))
      assert.strictEqual(plain.status, 409, "a plain form post gets the same status, as a page")
      assert.include(plain.body, "it is Running")
    }))

  it.scoped("cancel: an open Run closes, a repeat is a no-op, a closed Run is 409; a stale version is refused", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 3 })
      memory.script(runOf(run), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Running")
      const stale = yield* promise(() => browser.act(`/runs/${runOf(run)}/cancel`, { version: 1 }))
      assert.deepStrictEqual([stale.status, stale.body.error], [409, "StaleRunVersion"])
      const plain = yield* promise(() => browser.post(`/runs/${runOf(run)}/cancel`, { back: "/runs" }))
      assert.deepStrictEqual([plain.status, plain.headers.location], [303, "/runs"], "no JavaScript: 303 back")
      assert.strictEqual((yield* store.getRun(runOf(run))).state._tag, "Canceled")
      assert.deepStrictEqual(memory.cancels, [attemptIdOf(runOf(run), 1)])
      const again = yield* promise(() => browser.act(`/runs/${runOf(run)}/cancel`))
      assert.deepStrictEqual([again.status, again.body.canceled], [200, false])
      assert.strictEqual(memory.cancels.length, 1, "canceling twice stops the session once")

      const done = submission({ number: 4 })
      yield* engine.submit(done)
      yield* untilState(store, runOf(done), "Succeeded")
      const closed = yield* promise(() => browser.act(`/runs/${runOf(done)}/cancel`))
      assert.deepStrictEqual([closed.status, closed.body.state], [409, "Succeeded"])
      const offsite = yield* promise(() => browser.post(`/runs/${runOf(run)}/cancel`, { back: "//evil.example/x" }))
      assert.strictEqual(offsite.headers.location, `/runs/${runOf(run)}`, "back never leaves the Board")
    }))

  it.scoped("retry and edit and retry carry the version the operator saw: a Run changed since is 409", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 6 })
      memory.script(runOf(run), Script.fail(new AgentFailure({ reason: "tests fail", evidence: "" })), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Failed")
      const seen = (yield* store.getRun(runOf(run))).version
      const page = (yield* promise(() => browser.get(`/runs/${runOf(run)}`))).body
      const formOf = (action: string) => new RegExp(`<form[^>]*action="/runs/${runOf(run)}/${action}"[\\s\\S]*?</form>`).exec(page)?.[0] ?? ""
      for (const action of ["retry", "edit-and-retry"]) {
        assert.match(formOf(action), new RegExp(`name="version" value="${seen}"`), `the ${action} form carries the version`)
      }

      const stale = yield* promise(() => browser.act(`/runs/${runOf(run)}/retry`, { version: seen - 1 }))
      assert.deepStrictEqual([stale.status, stale.body.error], [409, "StaleRunVersion"])
      const staleEdit = yield* promise(() => browser.act(`/runs/${runOf(run)}/edit-and-retry`, { version: seen - 1, task: "stale" }))
      assert.deepStrictEqual([staleEdit.status, staleEdit.body.error], [409, "StaleRunVersion"])
      const stalePlain = yield* promise(() => browser.post(`/runs/${runOf(run)}/retry`, { version: seen - 1 }))
      assert.strictEqual(stalePlain.status, 409, "a plain form post gets the same status, as a page")
      const unchanged = yield* store.getRun(runOf(run))
      assert.deepStrictEqual([unchanged.state._tag, unchanged.task, unchanged.version], ["Failed", run.task, seen])
      assert.strictEqual((yield* store.attempts(runOf(run))).length, 1)

      const edited = yield* promise(() => browser.act(`/runs/${runOf(run)}/edit-and-retry`, { version: seen, task: "try harder" }))
      assert.deepStrictEqual([edited.status, edited.body.state], [200, "Running"])
      assert.strictEqual((yield* store.getRun(runOf(run))).task, "try harder")
    }))

  it.scoped("retry, edit and retry, resolve failure: legal on Failed only; a repeated retry never runs twice", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 5 })
      memory.script(runOf(run), Script.fail(new AgentFailure({ reason: "tests fail", evidence: "" })), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Failed")
      const resolved = yield* promise(() => browser.act(`/runs/${runOf(run)}/resolve-failure`))
      assert.deepStrictEqual([resolved.status, resolved.body.resolvedFailureAttemptId], [200, attemptIdOf(runOf(run), 1)])
      const resolvedAgain = yield* promise(() => browser.act(`/runs/${runOf(run)}/resolve-failure`))
      assert.strictEqual(resolvedAgain.status, 200, "resolving twice is harmless")
      const badAgent = yield* promise(() => browser.act(`/runs/${runOf(run)}/edit-and-retry`, { agent: "Not An Agent" }))
      assert.deepStrictEqual([badAgent.status, badAgent.body.field], [400, "agent"])
      assert.match(String(badAgent.body.message), /^agent: expected a name of lowercase letters.*, got "Not An Agent"$/)

      const retried = yield* promise(() => browser.act(`/runs/${runOf(run)}/edit-and-retry`, { task: "try harder", model: "" }))
      assert.deepStrictEqual([retried.status, retried.body.state], [200, "Running"])
      const twice = yield* promise(() => browser.act(`/runs/${runOf(run)}/retry`))
      assert.deepStrictEqual([twice.status, twice.body.state], [409, "Running"])
      const running = yield* store.getRun(runOf(run))
      assert.strictEqual(running.task, "try harder")
      yield* untilState(store, runOf(run), "Running")
      const unresolvable = yield* promise(() => browser.act(`/runs/${runOf(run)}/resolve-failure`))
      assert.strictEqual(unresolvable.status, 409)
      assert.strictEqual((yield* store.attempts(runOf(run))).length, 2)
    }))

  it.scoped("intervene: reaches the open Attempt's session; another Attempt or state is 409; an empty message 400", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 6 })
      memory.script(runOf(run), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Running")
      const attemptId = attemptIdOf(runOf(run), 1)
      const sent = yield* promise(() => browser.act(`/runs/${runOf(run)}/intervene`, { attemptId, message: "use the fixture" }))
      assert.deepStrictEqual([sent.status, sent.body.delivered], [200, true])
      assert.deepStrictEqual(memory.interventions, [{ attemptId, message: "use the fixture" }])
      const empty = yield* promise(() => browser.act(`/runs/${runOf(run)}/intervene`, { attemptId, message: " " }))
      assert.deepStrictEqual([empty.status, empty.body.field, empty.body.message], [400, "message", "message: write a message"])
      const other = yield* promise(() =>
        browser.act(`/runs/${runOf(run)}/intervene`, { attemptId: attemptIdOf(runOf(run), 2), message: "hi" })
      )
      assert.deepStrictEqual([other.status, other.body.error], [409, "AttemptNotOpen"])
      yield* engine.cancel(runOf(run))
      const closed = yield* promise(() => browser.act(`/runs/${runOf(run)}/intervene`, { attemptId, message: "hi" }))
      assert.deepStrictEqual([closed.status, closed.body.error], [409, "RunStateConflict"])
    }))
})
