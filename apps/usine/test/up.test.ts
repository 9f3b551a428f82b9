import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { daemonConfig, loop, REPOSITORY, SAMPLE_REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually, json } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine up", () => {
  it.scopedLive("turns a labelled issue into an approved Run and a pull request; SIGTERM mid-Attempt drains and exits 0", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" })
      )
      const port = yield* freePort
      writeFileSync(
        join(dir, "usine.yaml"),
        daemonConfig({
          apiUrl: sim.url,
          token,
          boardPort: port,
          workspaces: join(dir, "workspaces"),
          extra: "labels:\n  - {name: ready-for-agent, color: \"0e8a16\"}",
          loops: [loop("start-dev", "ready-for-agent", "required")],
          agentDelay: 2
        })
      )
      const usine = yield* startUsine(dir, ["up"])
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      assert.strictEqual(url, `http://127.0.0.1:${port}/`)

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0]))
      )
      assert.strictEqual(waiting.run.loop, "start-dev")
      assert.strictEqual(waiting.run.number, issue.number)
      assert.include(waiting.task, "slugify keeps punctuation")
      yield* board(url, `/runs/${waiting.run.id}/approve`, "POST")

      yield* usine.waitFor(/msg="attempt 1 started on local" run=[0-9a-f]{32}/)
      yield* usine.signal("SIGTERM")
      yield* usine.waitFor(/msg="SIGTERM: draining/)
      assert.strictEqual(yield* usine.exit("120 seconds"), 0, usine.stderr())
      assert.match(usine.stdout(), /msg="attempt 1 succeeded: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/\d+"/)
      assert.match(usine.stdout(), /msg="drained: every admitted attempt recorded its outcome; usine stops"/)

      const pulls = yield* json<ReadonlyArray<{ title: string; body: string }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=open`, {
        headers: { authorization: `token ${token}` }
      })
      assert.strictEqual(pulls.length, 1, "the Attempt admitted before SIGTERM finished and opened its pull request")
      const logFile = join(dir, "state", "logs", "usine.log")
      assert.isTrue(existsSync(logFile))
      const logged = readFileSync(logFile, "utf8")
      assert.include(logged, "usine is up as usine-bot")
      assert.notInclude(usine.stdout() + logged, token, "the GitHub token never reaches a log")
    }), 240_000)
})
