import { assert, describe } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { ReadModel } from "@usine/store/ReadModel"
import { REPOSITORY } from "./fixtures/testLedger"
import { fail, open, testReadModel } from "./ReadModel.support"
import { runLedger } from "@usine/testkit/runLedger"
import { layer } from "@usine/testkit/layer"
import { describeEngines, sqlite } from "@usine/testkit/ledgerEngines"

describeEngines("ReadModel.runs", (engine) => {
  layer(testReadModel(engine))("filters, counts and keyset pages", (it) => {
    it.effect("pages every matching Run once, newest first, with counts per state under the other filters", () =>
      Effect.gen(function* () {
        const store = yield* runLedger
        const model = yield* ReadModel
        const ids: Array<string> = []
        // Two Runs share a receipt time: the id breaks the tie, and no page boundary loses one.
        for (const [number, receivedAt] of [[1, 100], [2, 200], [3, 200], [4, 300], [5, 400], [6, 500], [7, 600]] as const) {
          const run = yield* open({ number, receivedAt, loop: number % 2 === 0 ? "review" : "build" })
          ids.push(run.id)
        }
        yield* store.cancel(ids[0]! as never)
        yield* fail(ids[1]! as never, "no")

        const seen: Array<string> = []
        let before: string | undefined
        for (let page = 0; page < 10; page++) {
          const result = yield* model.runs({ limit: 3, ...(before === undefined ? {} : { before }) })
          seen.push(...result.runs.map((r) => r.id))
          assert.deepStrictEqual(result.counts, {
            Pending: 5, Waiting: 0, Queued: 0, Running: 0, Reviewing: 0, Succeeded: 0, Failed: 1, Canceled: 1
          })
          if (result.next === undefined) break
          before = result.next
        }
        assert.strictEqual(seen.length, 7)
        assert.deepStrictEqual(new Set(seen), new Set(ids))
        const all = (yield* model.runs({ limit: 100 })).runs
        assert.deepStrictEqual(all.map((r) => r.id), seen, "pages concatenate to the unpaged list")
        assert.deepStrictEqual(all.map((r) => r.receivedAt), [600, 500, 400, 300, 200, 200, 100])
        assert.strictEqual(all.at(-1)?.cancelReason, "OperatorCanceled")

        const build = yield* model.runs({ limit: 100, loop: "build" })
        assert.deepStrictEqual(build.runs.map((r) => r.receivedAt), [600, 400, 200, 100])
        assert.strictEqual(build.counts.Canceled + build.counts.Pending + build.counts.Failed, 4)
        const failed = yield* model.runs({ limit: 100, state: "Failed" })
        assert.deepStrictEqual(failed.runs.map((r) => r.id), [ids[1]])
        assert.strictEqual(failed.counts.Pending, 5, "counts ignore the state filter")
        const window = yield* model.runs({ limit: 100, since: 200, until: 500 })
        assert.deepStrictEqual(window.runs.map((r) => r.receivedAt), [400, 300, 200, 200])
        const item = yield* model.runs({ limit: 100, itemKey: itemKeyOf(REPOSITORY, 4) })
        assert.deepStrictEqual(item.runs.map((r) => r.id), [ids[3]])
        const repository = yield* model.runs({ limit: 100, repository: REPOSITORY.toUpperCase() })
        assert.strictEqual(repository.runs.length, 7, "the repository filter ignores case")
        assert.deepStrictEqual((yield* model.runs({ limit: 100, repository: "other/repo" })).runs, [])
        const bogus = yield* model.runs({ limit: 2, before: "not a cursor" })
        assert.strictEqual(bogus.runs.length, 2, "an unreadable cursor starts from the newest")
      }))
  })
})

// Hand-written SQLite queries read by SQLite's EXPLAIN QUERY PLAN: PostgreSQL's planner chooses by its statistics.
describe("ReadModel.runs query plans (SQLite only)", () => {
  layer(testReadModel(sqlite))("query plans", (it) => {
    const plan = (query: string) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`)).pipe(
        Effect.map((rows) => rows.map((r) => r.detail).join(" | "))
      )

    it.effect("serves each page from an index, never by scanning the Runs table", () =>
      Effect.gen(function* () {
        const pages = [
          "SELECT id FROM usine_runs r WHERE (r.received_at, r.id) < (5, 'a') ORDER BY r.received_at DESC, r.id DESC LIMIT 51",
          "SELECT id FROM usine_runs r WHERE r.loop = 'x' ORDER BY r.received_at DESC, r.id DESC LIMIT 51",
          "SELECT id FROM usine_runs r WHERE r.repository = 'a/b' COLLATE NOCASE ORDER BY r.received_at DESC, r.id DESC LIMIT 51",
          "SELECT id FROM usine_runs r WHERE r.item_key = 'k' ORDER BY r.received_at DESC, r.id DESC LIMIT 51",
          "SELECT id FROM usine_runs r WHERE r.state = 'Failed' ORDER BY r.received_at DESC, r.id DESC LIMIT 51",
          "SELECT id FROM usine_runs r INDEXED BY usine_runs_failed_updated WHERE r.state = 'Failed' ORDER BY r.updated_at DESC, r.id DESC LIMIT 51",
          "SELECT loop, state, count(*) FROM usine_runs GROUP BY loop, state"
        ]
        for (const query of pages) {
          const detail = yield* plan(query)
          assert.notMatch(detail, /TEMP B-TREE/, `${query} sorts in memory: ${detail}`)
          assert.match(detail, /USING (COVERING )?INDEX/, `${query} uses no index: ${detail}`)
        }
      }))
  })
})
