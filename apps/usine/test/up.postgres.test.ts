import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunsView } from "@usine/board/BoardViews"
import { freshPgDatabase, postgresMissing, psqlOn } from "@usine/testkit/PgCluster"
import { daemonConfig, loop, REPOSITORY, SAMPLE_REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually, json } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

const skip = postgresMissing !== undefined && process.env["CI"] !== "true"

describe.skipIf(skip)("usine up on a PostgreSQL ledger (issue 36)", () => {
  it.scopedLive("a labelled issue becomes an approved Run and a pull request; a restart finds it in PostgreSQL", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World!" })
      )
      const database = yield* freshPgDatabase
      // The password goes in its own file; the URL names the user. (The test cluster trusts local connections.)
      writeFileSync(join(dir, "pg-password"), "pg-secret-0123\n", { mode: 0o600 })
      const port = yield* freePort
      const config = daemonConfig({
        apiUrl: sim.url,
        token,
        boardPort: port,
        workspaces: join(dir, "workspaces"),
        extra: "labels:\n  - {name: ready-for-agent, color: \"0e8a16\"}",
        loops: [loop("start-dev", "ready-for-agent", "required")],
        ledger: `{url: "${database}", password_file: pg-password}`
      })
      writeFileSync(join(dir, "usine.yaml"), config)
      const first = yield* startUsine(dir, ["up"])
      const url = (yield* first.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      assert.match(first.stdout(), /ledger=postgres:\/\/postgres@127\.0\.0\.1:\d+\/usine_test_/)

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0]))
      )
      yield* board(url, `/runs/${waiting.run.id}/approve`, "POST")
      yield* first.waitFor(/msg="attempt 1 succeeded: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/\d+"/)
      yield* first.signal("SIGTERM")
      assert.strictEqual(yield* first.exit("120 seconds"), 0, first.stderr())

      // The ledger is PostgreSQL's: no SQLite file, and the Run and its transitions are rows of the database.
      assert.isFalse(existsSync(join(dir, "state", "ledger.db")))
      const runs = yield* psqlOn(database, `SELECT state FROM usine_runs WHERE id = '${waiting.run.id}'`)
      assert.include(runs, "Succeeded")
      const pulls = yield* json<ReadonlyArray<{ title: string }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=open`, {
        headers: { authorization: `token ${token}` }
      })
      assert.strictEqual(pulls.length, 1)

      // A second start reads it back, and the same content is not acted on again.
      const second = yield* startUsine(dir, ["up"])
      const again = (yield* second.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      const listed = yield* board<RunsView>(again, "/api/runs")
      assert.deepStrictEqual(listed.page.runs.map((run) => [run.id, run.state]), [[waiting.run.id, "Succeeded"]])
      yield* Effect.sleep("3 seconds")
      const after = yield* board<RunsView>(again, "/api/runs")
      assert.strictEqual(after.page.runs.length, 1, "no second Run for the same issue content")
      yield* second.signal("SIGTERM")
      assert.strictEqual(yield* second.exit("60 seconds"), 0, second.stderr())
      const logged = readFileSync(join(dir, ".usine", "logs", "usine.log"), "utf8")
      assert.notInclude(first.stdout() + second.stdout() + logged, "pg-secret-0123")
    }), 240_000)
})
