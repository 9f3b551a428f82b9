import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as Sql from "@usine/store/Sql"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { exitCode, spawnScript, waitFor } from "./fixtures/childProcess"
import { submission, testLedger } from "./fixtures/testLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines } from "@usine/testkit/ledgerEngines"
import { runLedger } from "@usine/testkit/runLedger"

describeEngines("concurrent claims", (engine) => {
  layer(testLedger(engine))("one process", (it) => {
    it.effect("the same Submission 20 times at once yields one Run, opened once", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => store.recordAndClaim(submission({}))),
          { concurrency: "unbounded" }
        )
        const runIds = new Set(results.map((r) => (r._tag === "Claimed" ? r.run.id : r._tag)))
        assert.strictEqual(runIds.size, 1)
        assert.strictEqual(results.filter((r) => r._tag === "Claimed" && r.opened).length, 1)
        assert.strictEqual((yield* store.openRuns).length, 1)
      }))
  })

  // SQLite's BEGIN IMMEDIATE and PostgreSQL's advisory write lock (ADR 0106) each serialise the two processes' claims.
  it.scoped("two processes on one ledger: every Run opens once, in one process, with its rows", () =>
    Effect.gen(function* () {
      const file = yield* engine.place
      const opened = engine.name === "sqlite" ? Sql.layerUnlocked(file).pipe(Layer.orDie) : engine.open(file)
      const ledger = yield* Layer.build(SqlRunStore.layer.pipe(Layer.provideMerge(opened)))
      const children = yield* Effect.all([
        spawnScript("./raceClaims.ts", [file]),
        spawnScript("./raceClaims.ts", [file, "reverse"])
      ])
      yield* Effect.forEach(children, (child) => waitFor(child, "ready"), { concurrency: "unbounded" })
      for (const child of children) child.process.stdin.write("go\n")
      const codes = yield* Effect.forEach(children, exitCode, { concurrency: "unbounded" })
      assert.deepStrictEqual(codes, [0, 0], children.map((c) => c.output()).join("\n"))
      const openedBy = children
        .map((child) => JSON.parse(child.output().split("\n").find((line) => line.startsWith("{")) ?? "{}"))
        .reduce((sum, report: { opened: number }) => sum + report.opened, 0)

      const sql = yield* Effect.provide(SqlClient.SqlClient, ledger)
      const store = yield* Effect.provide(runLedger, ledger)
      const runs = yield* sql<{ id: string; state: string; loop: string; item_key: string }>`SELECT * FROM usine_runs`
      const events = yield* sql<{ n: number }>`SELECT count(*) AS n FROM usine_events`
      assert.strictEqual(events[0]?.n, 40)
      assert.strictEqual(openedBy, runs.length, "each Run was reported opened by exactly one process")
      const open = runs.filter((r) => ["Pending", "Waiting", "Queued", "Running"].includes(r.state))
      assert.strictEqual(new Set(open.map((r) => `${r.loop}|${r.item_key}`)).size, open.length)
      for (const run of runs) {
        const transitions = yield* store.transitions(run.id as never)
        assert.strictEqual(transitions[0]?.from, undefined)
        for (const [i, t] of transitions.entries()) if (i > 0) assert.strictEqual(t.from, transitions[i - 1]?.to)
        assert.strictEqual(transitions.at(-1)?.to, run.state)
      }
    }), 60_000)
})
