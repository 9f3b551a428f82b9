import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { daemonConfig, loop, REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine up with usine.yaml edited under it", () => {
  it.scopedLive("starts a new Loop from the next cycle, and keeps the old configuration when an edit is broken", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim, { files: { "README.md": "w\n" } })
      const issue = (title: string, label: string) =>
        Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, labels: [label] })).pipe(Effect.map((i) => i.number))
      const base = { apiUrl: sim.url, token, boardPort: yield* freePort, workspaces: join(dir, "ws") }
      const write = (text: string) => Effect.sync(() => writeFileSync(join(dir, "usine.yaml"), text))
      yield* write(daemonConfig({ ...base, loops: [loop("alpha", "alpha")] }))

      const usine = yield* startUsine(dir, ["up"])
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      const waitingRun = (number: number) =>
        eventually(
          `a waiting Run for #${number}`,
          Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
            Option.fromNullable(view.waiting.find((w) => w.run.number === number)?.run)
          )
        )

      const first = yield* issue("first", "alpha")
      assert.strictEqual((yield* waitingRun(first)).loop, "alpha")

      yield* write(daemonConfig({ ...base, loops: [loop("alpha", "alpha"), loop("beta", "beta")] }))
      yield* usine.waitFor(/msg="configuration reloaded: alpha, beta"/)
      const second = yield* issue("second", "beta")
      assert.strictEqual((yield* waitingRun(second)).loop, "beta", "the Loop added by the edit acts")

      const status = yield* startUsine(dir, ["status"])
      assert.strictEqual(yield* status.exit(), 0, status.stderr())
      assert.include(status.stdout(), `usine at http://127.0.0.1:${base.boardPort}`)
      assert.include(status.stdout(), "Open runs: 2")
      assert.include(status.stdout(), "\nLedger: SQLite\n", "status says which ledger")
      assert.include(status.stdout(), `approve  alpha ${REPOSITORY}#${first}`)
      assert.include(status.stdout(), `approve  beta ${REPOSITORY}#${second}`)
      assert.match(status.stdout(), /Workers:\n  local\s+0\/1 slots  ok  agents: demo/)

      yield* write(
        daemonConfig({ ...base, loops: [loop("alpha", "alpha"), loop("beta", "beta"), loop("gamma", "gamma")] }).replace(
          "poll_interval: 1s",
          "poll_interval: soon"
        )
      )
      yield* usine.waitFor(/level=WARN msg="configuration change rejected; the previous configuration stays in force:\\nusine\.yaml:5:16 poll_interval/)
      const reported = yield* eventually(
        "the rejected edit on Needs you",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.pollFailures[0]))
      )
      assert.strictEqual(reported.repository, "usine.yaml")
      assert.include(reported.message, "usine.yaml:5:16 poll_interval: expected seconds")

      const ignored = yield* issue("for the broken edit's Loop", "gamma")
      const third = yield* issue("third", "beta")
      assert.strictEqual((yield* waitingRun(third)).loop, "beta", "the configuration in force still polls")
      const view = yield* board<NeedsYouView>(url, "/api/needs-you")
      assert.isUndefined(view.waiting.find((w) => w.run.number === ignored), "gamma never came into force")

      yield* usine.signal("SIGTERM")
      assert.strictEqual(yield* usine.exit(), 0, usine.stderr())
    }), 240_000)
})
