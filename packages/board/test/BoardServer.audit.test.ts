import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import type { AuditView } from "@usine/board/AuditTrail/auditView"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { REPOSITORY, runOf, SECRET, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

describe("Board audit", () => {
  it.scoped("records each action with who, what, where and what became of it; a refusal for the Run's state is not an action", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const gated = submission({ number: 1, loop: "gated" })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      assert.strictEqual((yield* promise(() => browser.act(`/runs/${runOf(gated)}/approve`))).status, 200)
      yield* untilState(store, runOf(gated), "Succeeded")
      assert.strictEqual((yield* promise(() => browser.act(`/runs/${runOf(gated)}/approve`))).body["approved"], false)

      const hung = submission({ number: 2 })
      memory.script(runOf(hung), Script.hang)
      yield* engine.submit(hung)
      yield* untilState(store, runOf(hung), "Running")
      const message = `use the fixture, token ${SECRET}`
      const sent = yield* promise(() => browser.act(`/runs/${runOf(hung)}/intervene`, { attemptId: attemptIdOf(runOf(hung), 1), message }))
      assert.strictEqual(sent.status, 200)
      assert.strictEqual((yield* promise(() => browser.act(`/runs/${runOf(hung)}/approve`))).status, 409)
      assert.strictEqual((yield* promise(() => browser.act(`/runs/${runOf(hung)}/cancel`))).status, 200)
      assert.strictEqual((yield* promise(() => browser.act("/loops/gated/pause"))).status, 200)
      assert.strictEqual((yield* promise(() => browser.act("/loops/gated/unpause"))).status, 200)

      const view = JSON.parse((yield* promise(() => browser.get("/api/audit"))).body) as AuditView
      assert.deepStrictEqual(view.entries.map((e) => [e.by, e.action, e.outcome, e.repository, e.item, e.loop, e.runId]), [
        ["operator", "unpause", "done", undefined, undefined, "gated", undefined],
        ["operator", "pause", "done", undefined, undefined, "gated", undefined],
        ["operator", "cancel", "done", REPOSITORY, `${REPOSITORY}#2`, "build", runOf(hung)],
        ["operator", "intervene", "done", REPOSITORY, `${REPOSITORY}#2`, "build", runOf(hung)],
        ["operator", "approve", "unchanged", REPOSITORY, `${REPOSITORY}#1`, "gated", runOf(gated)],
        ["operator", "approve", "done", REPOSITORY, `${REPOSITORY}#1`, "gated", runOf(gated)]
      ])
      const intervened = view.entries[3]!
      assert.include(intervened.detail ?? "", "use the fixture, token ")
      assert.notInclude(JSON.stringify(view), SECRET, "what a person wrote passes the redactor")
      assert.match(intervened.result ?? "", /^delivered: /)
      assert.strictEqual(intervened.time, new Date(intervened.at).toISOString())

      const only = JSON.parse((yield* promise(() => browser.get("/api/audit?action=approve&limit=1"))).body) as AuditView
      assert.deepStrictEqual(only.entries.map((e) => e.outcome), ["unchanged"])
      const older = JSON.parse((yield* promise(() => browser.get(`/api/audit?action=approve&limit=1&before=${only.next}`))).body) as AuditView
      assert.deepStrictEqual([older.entries.map((e) => e.outcome), older.next], [["done"], undefined])
      const byRepository = JSON.parse((yield* promise(() => browser.get(`/api/audit?repository=${REPOSITORY.toUpperCase()}`))).body) as AuditView
      assert.strictEqual(byRepository.entries.length, 4, "a repository matches in any case; Loop-wide actions have none")
      const nobody = JSON.parse((yield* promise(() => browser.get("/api/audit?login=dana"))).body) as AuditView
      assert.deepStrictEqual(nobody.entries, [])

      const page = (yield* promise(() => browser.get("/audit?action=intervene"))).body
      assert.strictEqual(page.match(/data-testid="audit-row"/g)?.length, 1)
      assert.include(page, 'data-action="intervene"')
      assert.include(page, "use the fixture")
      assert.notInclude(page, SECRET)
      assert.include(page, `href="/runs/${runOf(hung)}"`)
    }))
})
