import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { storesAt, openedRun, submission } from "./fixtures/testLedger"
import { runLedger } from "@usine/testkit/runLedger"
import { describeEngines } from "@usine/testkit/ledgerEngines"

const SHA = "a".repeat(40)
const BRANCH = "usine/start-dev/7-0123abcd"

describeEngines("PushRecords.recordPush (ADR 0082)", (engine) => {
  it.scoped("the push columns (SQLite's migration 0014, PostgreSQL's 0001) on a real ledger: the push is written before it is sent, read back after a restart, the first record stays", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const attemptId = yield* Effect.scoped(Effect.gen(function* () {
        const store = yield* Effect.provide(runLedger, yield* Layer.build(storesAt(engine, file)))
        const run = openedRun(yield* store.recordAndClaim(submission({ number: 7 })))
        const begun = yield* store.beginAttempt(run.id, { live: () => true })
        if (begun._tag !== "Started") throw new Error("expected Started")
        const id = begun.attempt.id
        assert.isTrue(Option.isNone(yield* store.recordedPush(id)), "nothing recorded before the push")
        assert.deepStrictEqual(yield* store.recordPush(id, { branch: BRANCH, sha: SHA }), { branch: BRANCH, sha: SHA })
        // The same record again is a no-op; another commit for the Attempt does not replace the first.
        assert.deepStrictEqual(yield* store.recordPush(id, { branch: BRANCH, sha: SHA }), { branch: BRANCH, sha: SHA })
        assert.deepStrictEqual(yield* store.recordPush(id, { branch: BRANCH, sha: "b".repeat(40) }), { branch: BRANCH, sha: SHA })
        return id
      }))

      // A second daemon on the same file (migrations already applied: applying them again changes nothing).
      yield* Effect.scoped(Effect.gen(function* () {
        const context = yield* Layer.build(storesAt(engine, file))
        const store = Effect.provide(runLedger, context)
        const sql = yield* Effect.provide(SqlClient.SqlClient, context)
        const pushMigration = engine.name === "sqlite" ? [14, "attempt_push"] : [1, "ledger"]
        const migrations = yield* sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM usine_migrations WHERE migration_id = ${pushMigration[0]!}`
        assert.deepStrictEqual(migrations.map((m) => [m.migration_id, m.name]), [pushMigration])
        const rows = yield* sql<{ push_branch: string; push_sha: string }>`SELECT push_branch, push_sha FROM usine_attempts WHERE id = ${attemptId}`
        assert.deepStrictEqual(rows, [{ push_branch: BRANCH, push_sha: SHA }])
        const s = yield* store
        assert.deepStrictEqual(Option.getOrThrow(yield* s.recordedPush(attemptId)), { branch: BRANCH, sha: SHA })

        // Once the outcome is recorded the Attempt takes no record; what it pushed stays readable.
        yield* s.finishAttempt(attemptId, new AttemptSucceeded({ result: { commits: [SHA], summary: "pushed" } }))
        const refused = yield* Effect.flip(s.recordPush(attemptId, { branch: BRANCH, sha: "c".repeat(40) }))
        assert.strictEqual(refused._tag, "AttemptNotOpen")
        assert.deepStrictEqual(Option.getOrThrow(yield* s.recordedPush(attemptId)), { branch: BRANCH, sha: SHA })
      }))
    }))

  it.scoped("an Attempt that does not exist takes no record and has none", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const store = yield* Effect.provide(runLedger, yield* Layer.build(storesAt(engine, file)))
      const missing = AttemptId(`${"0".repeat(32)}/main/1`)
      const refused = yield* Effect.flip(store.recordPush(missing, { branch: BRANCH, sha: SHA }))
      assert.strictEqual(refused._tag, "AttemptNotOpen")
      assert.isTrue(Option.isNone(yield* store.recordedPush(missing)))
    }))
})
