import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { RunsView } from "@usine/board/BoardViews"
import type { RunView } from "@usine/board/BoardViews/runView"
import { freePort } from "./support/freePort"
import { eventually, json } from "./support/http"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine demo", () => {
  it.scopedLive("runs the real Pi CLI on a scripted model: the Run's transcript is Pi's session, tool calls and usage", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const demo = yield* startUsine(yield* scopedDir, ["demo", "--port", String(port)])
      const boardUrl = `http://127.0.0.1:${port}`
      yield* demo.waitFor(/agent {3}the real Pi coding agent/)
      // #2 starts by itself (approval: none); nothing approves #1 here.
      const run = yield* eventually(
        "the small-features Run succeeded",
        Effect.map(json<RunsView>(`${boardUrl}/api/runs`), (view) =>
          Option.fromNullable(view.page.runs.find((r) => r.loop === "small-features" && r.state === "Succeeded"))
        ).pipe(Effect.orElseSucceed(() => Option.none())),
        120
      )
      assert.strictEqual(run.agent, "pi-features")
      const view = yield* json<RunView>(`${boardUrl}/api/runs/${run.id}`)
      const lines = view.transcript.lines
      assert.isTrue(lines.some((l) => l.kind === "system" && l.text.startsWith("pi session ")), "Pi's own session header")
      assert.deepStrictEqual(lines.filter((l) => l.kind === "tool_call").map((l) => l.tool), ["write", "write", "bash"])
      assert.match(lines.filter((l) => l.kind === "tool_result").at(-1)?.text ?? "", /# pass 4[\s\S]*Add deslugify/)
      assert.deepStrictEqual(view.usage, { inputTokens: 10400, outputTokens: 340, cachedInputTokens: 7000, costUsd: 0 })
      assert.strictEqual(view.result?.pullRequestUrl?.endsWith(`/demo/slugger/pull/${view.result.pullRequestNumber}`), true)

      yield* demo.signal("SIGINT")
      assert.strictEqual(yield* demo.exit("90 seconds"), 0, demo.stderr())
      assert.strictEqual(demo.stderr(), "")
    }), 180_000)

  it.scopedLive("--agent script keeps the scripted stand-in: the demo still ends with a pull request", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const demo = yield* startUsine(yield* scopedDir, ["demo", "--agent", "script", "--auto-approve", "--exit-after", "1", "--port", String(port)])
      assert.strictEqual(yield* demo.exit("150 seconds"), 0, demo.stdout() + demo.stderr())
      assert.include(demo.stdout(), "agent   a scripted stand-in for a coding agent")
      assert.match(demo.stdout(), /1 pull request open:\n {2}#\d+ (Add deslugify|Strip punctuation in slugify) /)
    }), 180_000)
})
