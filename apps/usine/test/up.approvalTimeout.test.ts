import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

/** How long after the minute of `approval_timeout: 1` the Run parked in `parked` was canceled, from its timeline. */
const lateness = (view: RunView, parked: "Waiting" | "Reviewing") => {
  const since = view.timeline.findLast((t) => t.what.endsWith(`→ ${parked}`))?.at ?? 0
  const canceled = view.timeline.findLast((t) => t.what === `${parked} → Canceled`)?.at ?? 0
  return canceled - since - 60_000
}

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
      const late = lateness(view, "Waiting")
      assert.isAtLeast(late, 0, "not before the minute")
      assert.isBelow(late, 10_000, `canceled ${late} ms after the minute`)
      assert.deepStrictEqual(view.attempts, [], "it never ran")
    }), 240_000)

  it.scopedLive("at the pull-request gate: a drain does not wait on the parked Run, which stays parked across the restart; approval_timeout: 1 then cancels it and salvages its work, no pull request", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim, token } = world
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))
      const gated = loop("gated", "ready-for-agent", "none")
        .replace("approval: none", "approval: {start: none, pull_request: required}\n    approval_timeout: 1")
      const { usine: first, url } = yield* upIn(world, { loops: [gated] })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const parked = yield* eventually("the Run parks at the gate", Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
        Option.fromNullable(view.reviewing.find((w) => w.run.number === issue.number))), 90)
      const runId = parked.run.id

      // SIGTERM drains: nothing runs, so the daemon stops at once and the parked Run is left as it is.
      const termAt = Date.now()
      yield* first.signal("SIGTERM")
      assert.strictEqual(yield* first.exit("30 seconds"), 0, first.stderr())
      assert.isBelow(Date.now() - termAt, 15_000, "the drain waited on no parked Run")
      assert.match(first.stdout(), /drained: every admitted attempt recorded its outcome/)

      const second = yield* startUsine(dir, ["up"])
      yield* second.waitFor(/usine is up as/)
      assert.strictEqual((yield* board<RunView>(url, `/api/runs/${runId}`)).run.state, "Reviewing", "still parked after the restart")
      const view = yield* eventually(
        "the parked Run is canceled",
        Effect.map(board<RunView>(url, `/api/runs/${runId}`), (v) => Option.liftPredicate(v, (x) => x.run.state === "Canceled")),
        90
      )
      assert.strictEqual(view.run.cancelReason, "ApprovalTimedOut")
      const late = lateness(view, "Reviewing")
      assert.isAtLeast(late, 0, "not before the minute")
      assert.isBelow(late, 10_000, `canceled ${late} ms after the minute`)
      const remote = sim.authenticatedCloneUrl(REPOSITORY, token)
      const heads = yield* eventually("the held work is salvaged", Effect.map(
        Effect.promise(() => promisify(execFile)("git", ["ls-remote", "--heads", remote], { encoding: "utf8" }).then((r) => r.stdout)),
        (out) => Option.liftPredicate(out, (o) => o.includes(`refs/heads/usine/salvage/${runId}/`))), 30)
      assert.deepStrictEqual(heads.split("\n").filter((l) => l.includes("refs/heads/usine/") && !l.includes("/salvage/")), [], "no Run branch")
      const pulls = yield* json<ReadonlyArray<unknown>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=all`, { headers: { authorization: `Bearer ${token}` } })
      assert.strictEqual(pulls.length, 0, "no pull request")
    }), 240_000)
})
