import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

describe("usine up: approval_timeout", () => {
  it.scopedLive("approval_timeout: 1 cancels the Run within 10 s of the minute, across a SIGKILL and a restart", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim } = world
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "slugify", body: "fix it" }))
      const { usine: first, url } = yield* upIn(world, { loops: [`${loop("gated", "ready-for-agent", "required")}\n    approval_timeout: 1`] })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0]))
      )
      const runId = waiting.run.id
      yield* Effect.sleep("15 seconds")
      yield* first.signal("SIGKILL")
      yield* first.exit()

      const second = yield* startUsine(dir, ["up"])
      yield* second.waitFor(/usine is up as/)
      const view = yield* eventually(
        "the Run is canceled",
        Effect.map(board<RunView>(url, `/api/runs/${runId}`), (view) => Option.liftPredicate(view, (v) => v.run.state === "Canceled")),
        90
      )
      assert.strictEqual(view.run.cancelReason, "ApprovalTimedOut")
      const since = view.timeline.findLast((t) => t.what.endsWith("→ Waiting"))?.at ?? 0
      const canceled = view.timeline.findLast((t) => t.what === "Waiting → Canceled")?.at ?? 0
      const late = canceled - since - 60_000
      assert.isAtLeast(late, 0, "not before the minute")
      assert.isBelow(late, 10_000, `canceled ${late} ms after the minute`)
      assert.deepStrictEqual(view.attempts, [], "it never ran")
    }), 240_000)
})
