import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunsView } from "@usine/board/BoardViews"
import type { WorkerStatus } from "@usine/board/WorkerStatusFeed"
import { daemonConfig, loop, REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

const workersYaml = (workers: Record<string, { readonly root: string; readonly max: number }>) =>
  `workers:\n${Object.entries(workers).map(([name, w]) => `  ${name}:\n    root: ${JSON.stringify(w.root)}\n    max_concurrent_attempts: ${w.max}\n`).join("")}`

describe("usine up with the Workers of usine.yaml edited under it (ADR 0052)", () => {
  it.scopedLive("applies a raised capacity, opens an added Worker, reports one that cannot open, and retires a removed one", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim, { files: { "README.md": "w\n" } })
      for (const title of ["one", "two", "three"]) {
        yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, labels: ["go"] }))
      }
      const ws = join(dir, "ws")
      const spareRoot = join(dir, "ws-spare")
      const base = daemonConfig({
        apiUrl: sim.url,
        token,
        boardPort: yield* freePort,
        workspaces: ws,
        loops: [loop("work", "go", "none")],
        agentDelay: 20
      })
      const write = (workers: Record<string, { readonly root: string; readonly max: number }>) =>
        Effect.sync(() => writeFileSync(join(dir, "usine.yaml"), base.replace(/workers:\n  local:\n    root: .*\n/, workersYaml(workers))))
      yield* write({ local: { root: ws, max: 1 } })

      const usine = yield* startUsine(dir, ["up"])
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      const started = () => usine.stdout().match(/attempt 1 started on local/g)?.length ?? 0
      const workers = Effect.map(board<{ readonly workers: ReadonlyArray<WorkerStatus> }>(url, "/api/workers"), (v) => v.workers)
      const slots = Effect.map(workers, (list) => list.map((w) => `${w.name} ${w.slotsUsed}/${w.slotsMax}`).join(", "))
      const running = Effect.map(board<RunsView>(url, "/api/runs"), (v) => v.page.runs.filter((r) => r.state === "Running").length)

      yield* eventually("one Attempt starts", Effect.sync(() => (started() === 1 ? Option.some(1) : Option.none())))
      yield* Effect.sleep("3 seconds")
      assert.strictEqual(started(), 1, "one slot: the other Runs wait")
      assert.strictEqual(yield* slots, "local 1/1")
      assert.strictEqual((yield* board<RunsView>(url, "/api/runs")).page.runs.length, 3)

      yield* write({ local: { root: ws, max: 3 } })
      yield* eventually("the other two Attempts start without a restart", Effect.sync(() => (started() === 3 ? Option.some(3) : Option.none())), 20)
      assert.strictEqual(yield* slots, "local 3/3")
      assert.strictEqual(yield* running, 3)
      assert.notMatch(usine.stdout(), /apply at the next start only: workers/)

      // An added Worker with its own root is opened (its root locked); one on the root this daemon holds cannot be.
      yield* write({ local: { root: ws, max: 3 }, spare: { root: spareRoot, max: 2 }, twin: { root: ws, max: 1 } })
      yield* usine.waitFor(/msg="Worker added" worker=spare/)
      yield* eventually("spare on the Workers page", Effect.map(slots, (s) => (s.includes("spare 0/2") ? Option.some(s) : Option.none())), 20)
      assert.include(readFileSync(join(spareRoot, ".usine.lock"), "utf8"), `usine process ${usine.child.pid}`)
      const reported = yield* eventually(
        "the Worker that could not open, on Needs you",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
          Option.fromNullable(view.pollFailures.find((f) => f.message.includes("workers.twin")))
        )
      )
      assert.include(reported.message, "is in use by usine process")
      assert.match(reported.message, /^a Worker of the configuration could not be opened; the rest of the change applies:/)
      assert.strictEqual(yield* running, 3, "the rest of the reload applied, nothing stopped")

      // A removed Worker with nothing running on it is closed at once: its lock goes.
      yield* write({ local: { root: ws, max: 3 } })
      yield* usine.waitFor(/msg="a removed Worker has no Attempt left: its root is released" root=\S+ worker=spare/)
      yield* eventually("spare gone from the Workers page", Effect.map(slots, (s) => (s === "local 3/3" ? Option.some(s) : Option.none())), 20)
      const lock = join(spareRoot, ".usine.lock")
      assert.isTrue(existsSync(lock))
      assert.strictEqual(spawnSync("flock", ["-n", lock, "true"]).status, 0, "the spare root's lock is released")
      assert.notStrictEqual(spawnSync("flock", ["-n", join(ws, ".usine.lock"), "true"]).status, 0, "local's is still held")

      yield* usine.signal("SIGTERM")
      assert.strictEqual(yield* usine.exit("90 seconds"), 0, usine.stderr())
      assert.match(usine.stdout(), /drained: every admitted attempt recorded its outcome/)
    }), 240_000)
})
