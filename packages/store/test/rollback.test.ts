import { assert } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Effect, Exit } from "effect"
import { openedRun, submission, testLedger } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { allowRows, refuseRows } from "./fixtures/refuseRows"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*) AS n FROM ${sql(table)}`).pipe(
    Effect.map((rows) => rows[0]?.n ?? -1)
  )

const refuse = (name: string, table: string, when: string) => refuseRows(name, table, "INSERT", when)

const update = (name: string, table: string) => refuseRows(name, table, "UPDATE")

const drop = allowRows

describeEngines("rollback", (engine) => {
  layer(testLedger(engine))("a failure in the middle of a store method", (it) => {
    it.effect("recordAndClaim: the supersede, the Event and the new Run all roll back", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const old = openedRun(yield* store.recordAndClaim(submission({ hash: "a" })))
        const before = { events: yield* count("usine_events"), transitions: yield* count("usine_transitions") }
        // The new Run's opening row fails: the old Run was already canceled and the Event inserted by then.
        yield* refuse("no_open", "usine_transitions", "NEW.from_state IS NULL")
        const exit = yield* Effect.exit(store.recordAndClaim(submission({ hash: "b" })))
        yield* drop("no_open", "usine_transitions")
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
        const after = yield* store.getRun(old.id)
        assert.deepStrictEqual([after.state._tag, after.version], ["Pending", 1])
        assert.deepStrictEqual(
          { events: yield* count("usine_events"), transitions: yield* count("usine_transitions") },
          before
        )
        assert.strictEqual((yield* store.claimQueued(submission({ hash: "b" }).eventId))._tag, "Ignored")
        assert.deepStrictEqual((yield* store.openRuns).map((r) => r.id), [old.id])
        // With the refusal gone the same submission goes through.
        const retried = yield* store.recordAndClaim(submission({ hash: "b" }))
        assert.isTrue(retried._tag === "Claimed" && retried.opened)
      }))

    it.effect("cancel: the Run's Canceled state and its transition row roll back with the Attempt", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const run = openedRun(yield* store.recordAndClaim(submission({ number: 8 })))
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        yield* update("no_attempt_close", "usine_attempts")
        const exit = yield* Effect.exit(store.cancel(run.id))
        yield* drop("no_attempt_close", "usine_attempts")
        assert.isTrue(Exit.isFailure(exit))
        const after = yield* store.getRun(run.id)
        assert.deepStrictEqual([after.state._tag, after.version], ["Running", begun.run.version])
        assert.deepStrictEqual((yield* store.transitions(run.id)).map((t) => t.to), ["Pending", "Running"])
        assert.isTrue((yield* store.attempts(run.id)).every((a) => a.outcome === undefined))
      }))
  })
})
