import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"

const setupLoop = (setup: string) => `
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: none
    retry_backoff: []
    setup: [${JSON.stringify(setup)}]
    setup_minutes: 1`

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly state: string }> }
}

describe("usine up: setup", () => {
  it.scopedLive("a failing setup: ends each Attempt as the infrastructure failure SetupFailed with its output tail, before the agent, and retries", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim } = world
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!", labels: ["ready-for-agent"] })
      )
      const { usine, url } = yield* upIn(world, {
        loops: [setupLoop('echo "installing dependencies"; test -f package.json && echo "lockfile is out of date" >&2; exit 3')]
      })
      const run = yield* eventually(
        "the Run failed after its Attempts",
        Effect.map(board<RunsJson>(url, "/api/runs"), (json) => Option.fromNullable(json.page.runs.find((r) => r.state === "Failed"))),
        120
      )
      const view = yield* board<RunView>(url, `/api/runs/${run.id}`)
      assert.strictEqual(view.attempts.length, 3, "retried like any infrastructure failure")
      for (const attempt of view.attempts) {
        assert.strictEqual(attempt.failure?.tag, "InfraFailure")
        assert.include(attempt.failure?.message ?? "", "(SetupFailed)")
        assert.include(attempt.failure?.evidence ?? "", "installing dependencies")
        assert.include(attempt.failure?.evidence ?? "", "lockfile is out of date", "the command ran in the worktree, output tail kept")
      }
      const said = view.transcript.lines.map((line) => line.text).join("\n")
      assert.notInclude(said, "plan: fix slugify", "the agent never started")
      assert.notInclude(usine.stdout(), "agent failure")
      assert.strictEqual(issue.number, 1)
    }), 240_000)

  it.scopedLive("a passing setup: runs in the worktree before the agent, whose work then goes out as usual", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim } = world
      yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World!", labels: ["ready-for-agent"] })
      )
      const { usine } = yield* upIn(world, { loops: [setupLoop("test -f package.json && echo prepared")] })
      yield* usine.waitFor(/msg="attempt 1 succeeded/, "90 seconds")
    }), 240_000)
})
