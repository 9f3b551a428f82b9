import { assert, describe } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import { layer } from "@usine/testkit/layer"
import { freshPgDatabase, postgresMissing } from "@usine/testkit/PgCluster"
import { runLedger } from "@usine/testkit/runLedger"
import { compareLedgers, copyLedger } from "../src/LedgerCopy"
import * as PgSql from "../src/PgSql"
import { sqlite as sqliteEngine } from "@usine/testkit/ledgerEngines"
import { fail, line, open, testReadModel } from "./ReadModel.support"

const skip = postgresMissing !== undefined && process.env["CI"] !== "true"

/** A fresh, migrated PostgreSQL ledger in the test's scope. */
const pgLedger = Effect.gen(function*() {
  const url = yield* freshPgDatabase
  const context = yield* Layer.build(PgSql.layer({ url: Redacted.make(url) }))
  return yield* Effect.provide(SqlClient.SqlClient, context)
}).pipe(Effect.orDie)

/** A SQLite ledger with Runs in several states, Attempts, transcripts, transitions, and awkward values. */
const seed = Effect.gen(function*() {
  const store = yield* runLedger
  const sqlite = yield* SqlClient.SqlClient
  const runs = []
  for (let number = 1; number <= 12; number++) runs.push(yield* open({ number, receivedAt: 1_764_900_000_000 + number }))
  yield* store.cancel(runs[0]!.id)
  for (const run of runs.slice(1, 6)) yield* fail(run.id, `it's "broken" — ünïcödé 🚧 ${run.number}`, [line("a\nb\tc"), line("'; DROP TABLE x; --")])
  yield* sqlite`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES ('build', 1, ${2 ** 53 - 1})`
  yield* sqlite`INSERT INTO usine_usage_days (day, scope, name, input_tokens, output_tokens, cached_input_tokens, cost_usd)
    VALUES ('2026-12-05', 'loop', 'build', 1200, 34, 0, ${0.1 + 0.2}), ('2026-12-05', 'global', '', 1, 2, 3, NULL)`
  yield* sqlite`INSERT INTO usine_run_notes (run_id, kind, actor, summary, body_json, after_seq, at, login)
    VALUES (${runs[6]!.id}, 'Held', 'operator', 'held', '{"why":"\u00e9"}', NULL, 5, 'octocat')`
  return runs
})

describe.skipIf(skip)("usine ledger migrate: a SQLite ledger copied into PostgreSQL (issue 36)", () => {
  layer(testReadModel(sqliteEngine))("a seeded ledger", (it) => {
    it.scoped("every table arrives with the same rows, and PostgreSQL's ids go on after SQLite's", () =>
      Effect.gen(function*() {
        yield* seed
        const sqlite = yield* SqlClient.SqlClient
        const pg = yield* pgLedger
        const reported: Array<string> = []
        yield* copyLedger(sqlite, pg, (table, rows) => Effect.sync(() => void reported.push(`${table}:${rows}`)))
        const compared = yield* compareLedgers(sqlite, pg)
        assert.strictEqual(compared.length, reported.length)
        const rowsOf = (table: string) => compared.find((c) => c.table === table)?.rows
        assert.strictEqual(rowsOf("usine_runs"), 12)
        assert.strictEqual(rowsOf("usine_attempts"), 5)
        assert.strictEqual(rowsOf("usine_transcript_rows"), 10)
        assert.isAtLeast(rowsOf("usine_transitions")!, 12)
        assert.strictEqual(rowsOf("usine_usage_days"), 2)
        assert.strictEqual(rowsOf("usine_run_notes"), 1)
        assert.isAtLeast(compared.filter((c) => c.rows > 0).length, 8, "the seed reaches many tables")
        // Parents are copied before children (the foreign keys would refuse otherwise).
        assert.isBelow(reported.findIndex((r) => r.startsWith("usine_events:")), reported.findIndex((r) => r.startsWith("usine_runs:")))
        // The planner has statistics for every copied table, as after any bulk load.
        const unanalyzed = yield* pg<{ table: string }>`
          SELECT relname AS "table" FROM pg_stat_user_tables WHERE relname LIKE 'usine_%' AND last_analyze IS NULL
        `
        assert.deepStrictEqual(unanalyzed.map((r) => r.table).filter((t) => compared.some((c) => c.table === t)), [])
        const [maxSeq] = yield* sqlite<{ seq: number }>`SELECT max(seq) AS seq FROM usine_transitions`
        const [run] = yield* pg<{ id: string }>`SELECT id FROM usine_runs LIMIT 1`
        const [next] = yield* pg<{ seq: number }>`
          INSERT INTO usine_transitions (run_id, from_state, to_state, actor, reason, at)
          VALUES (${run!.id}, 'Running', 'Failed', 'operator', 'after the copy', 1)
          RETURNING seq
        `
        assert.strictEqual(next!.seq, maxSeq!.seq + 1)
      }), 60_000)
  })

  layer(testReadModel(sqliteEngine))("a target that is not empty", (it) => {
    it.scoped("is refused, naming the table, and left as it was", () =>
      Effect.gen(function*() {
        yield* seed
        const sqlite = yield* SqlClient.SqlClient
        const pg = yield* pgLedger
        yield* pg`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES ('already', 0, 1)`
        const error = yield* Effect.flip(copyLedger(sqlite, pg))
        assert.strictEqual(error._tag, "LedgerCopyFailed")
        assert.include(error.message, "usine_loop_runtime: the PostgreSQL ledger already holds 1 rows")
        const [runs] = yield* pg<{ n: number }>`SELECT count(*) AS n FROM usine_runs`
        assert.strictEqual(runs!.n, 0)
      }), 60_000)
  })

  layer(testReadModel(sqliteEngine))("a row PostgreSQL refuses", (it) => {
    it.scoped("fails the copy and leaves the target empty: one transaction", () =>
      Effect.gen(function*() {
        yield* seed
        const sqlite = yield* SqlClient.SqlClient
        const pg = yield* pgLedger
        // SQLite's type affinity keeps text in an INTEGER column; PostgreSQL's BIGINT does not.
        yield* sqlite`UPDATE usine_loop_runtime SET updated_at = 'not a number'`
        const error = yield* Effect.flip(copyLedger(sqlite, pg))
        assert.strictEqual(error._tag, "SqlError")
        assert.strictEqual((error.cause as { readonly code?: string }).code, "22P02", "PostgreSQL refused the text as a bigint")
        const counts = yield* pg<{ n: number }>`
          SELECT (SELECT count(*) FROM usine_events) + (SELECT count(*) FROM usine_runs) + (SELECT count(*) FROM usine_loop_runtime) AS n
        `
        assert.strictEqual(counts[0]!.n, 0)
      }), 60_000)
  })

  layer(testReadModel(sqliteEngine))("a copy changed afterwards", (it) => {
    it.scoped("is found by the comparison, which names the table", () =>
      Effect.gen(function*() {
        yield* seed
        const sqlite = yield* SqlClient.SqlClient
        const pg = yield* pgLedger
        yield* copyLedger(sqlite, pg)
        yield* pg`UPDATE usine_runs SET task = task || ' ' WHERE id = (SELECT min(id) FROM usine_runs)`
        const error = yield* Effect.flip(compareLedgers(sqlite, pg))
        assert.include(error.message, "usine_runs: PostgreSQL holds 12 rows")
      }), 60_000)
  })

  layer(testReadModel(sqliteEngine))("schemas that differ", (it) => {
    it.scoped("are refused before anything is written, naming the table and column", () =>
      Effect.gen(function*() {
        yield* seed
        const sqlite = yield* SqlClient.SqlClient
        const pg = yield* pgLedger
        yield* pg`ALTER TABLE usine_runs ADD COLUMN future TEXT`
        const error = yield* Effect.flip(copyLedger(sqlite, pg))
        assert.include(error.message, "usine_runs: the engines' columns differ (only in SQLite: none; only in PostgreSQL: future)")
        const [events] = yield* pg<{ n: number }>`SELECT count(*) AS n FROM usine_events`
        assert.strictEqual(events!.n, 0)
      }), 60_000)
  })
})
