import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { runGit } from "../resilience/support/runGit"
import { attack, hostileDaemon, type RunsJson, settledRuns, TERMINAL } from "./support/HostileDaemon"
import { describeRun, listenerFindings, markersLeft, remoteBranches } from "./support/proofs"

/**
 * Issue 16, attack 5: someone pushes to a pull request's branch after the poll observed its head and after the
 * Run was approved. No agent works on the unapproved commit (the Run starts from the approved head, or does not
 * start once it sees the branch moved), the moved branch is not overwritten (the push carries a lease on the
 * approved head), the Run says why it failed, and the new content comes back as a new Event, for its own approval.
 */
const LOOPS = `
  - name: hold
    on: issues
    if: '"hostile" in item.labels'
    prompt: "attack {{ item.title }} on #{{ item.number }}"
    agent: hostile
    approval: none
  - name: review
    on: pull_requests
    if: '"review" in item.labels'
    prompt: "attack pr-head on #{{ item.number }} observed {{ item.headSha }}"
    agent: hostile
    approval: required
    retry_backoff: [1s]`

describe("hostile agent: a pull request's branch moves after approval, through usine up", () => {
  it.scopedLive("no agent works on the unapproved head, the moved branch is not overwritten, the Run says why, and the new head is a new Event", () =>
    Effect.gen(function* () {
      const daemon = yield* hostileDaemon({ loops: LOOPS, slots: 1 })
      yield* Effect.promise(() => daemon.sim.control.createLabel({ repo: REPOSITORY, name: "review" }))
      const clone = join(daemon.dir, "clone")
      const git = (...args: ReadonlyArray<string>) => Effect.orDie(runGit(daemon.dir, "-C", clone, ...args))
      yield* Effect.orDie(runGit(daemon.dir, "clone", "--quiet", daemon.sim.authenticatedCloneUrl(REPOSITORY, daemon.token), clone))
      const commit = (text: string) =>
        Effect.gen(function* () {
          writeFileSync(join(clone, "feature.txt"), text)
          yield* git("add", "feature.txt")
          yield* git("commit", "--quiet", "-m", text)
          yield* git("push", "--quiet", "origin", "feature")
          return (yield* git("rev-parse", "HEAD")).trim()
        })
      yield* git("checkout", "--quiet", "-b", "feature")
      const approved = yield* commit("the head that is approved\n")

      // The Worker's one slot is taken, so the approved Run waits for it while the branch moves.
      const holder = yield* attack(daemon, "hold")
      yield* daemon.usine.waitFor(/msg="attempt 1 started on local"/, "90 seconds")
      const pull = yield* Effect.promise(() => daemon.sim.control.createPullRequest({ repo: REPOSITORY, title: "Feature", head: "feature" }))
      yield* Effect.promise(() => daemon.sim.control.addLabels({ repo: REPOSITORY, number: pull.number, labels: ["review"] }))
      const waiting = yield* eventually(
        "the pull request's Run waits for approval",
        Effect.map(board<NeedsYouView>(daemon.board, "/api/needs-you"), (view) =>
          Option.fromNullable(view.waiting.find((w) => w.run.number === pull.number)))
      )
      assert.include(waiting.task, `observed ${approved}`, "the Run's task names the head the poll observed")
      yield* board(daemon.board, `/runs/${waiting.run.id}/approve`, "POST")
      // The poll must not see the new head before the Attempt starts: its listing fails meanwhile.
      yield* Effect.promise(() => daemon.sim.control.setFault({ method: "GET", path: `/repos/${REPOSITORY}/issues`, status: 502 }))
      yield* Effect.sleep("2500 millis")
      const moved = yield* commit("pushed by someone else after the approval\n")
      for (const name of readdirSync(join(daemon.workerRoot, "attempts"))) {
        writeFileSync(join(daemon.workerRoot, "attempts", name, "worktree", "release"), "")
      }
      const [first] = yield* settledRuns(daemon, [pull.number])
      yield* Effect.promise(() => daemon.sim.control.clearFaults())

      const problems: Array<string> = []
      // Either no agent ran (the start saw the branch had moved) or it ran on the approved head and its push was
      // refused by the lease; never did an agent work on the unapproved commit.
      const started = /observed [0-9a-f]*, started at ([0-9a-f]+)/.exec(first!.transcript.lines.map((line) => line.text).join("\n"))?.[1]
      if (started !== undefined && started !== approved) {
        problems.push(`an agent ran on the unapproved head ${started.slice(0, 8)}, not the approved ${approved.slice(0, 8)}`)
      }
      const head = remoteBranches(daemon).get("feature")
      if (head !== moved) problems.push(`the moved branch was overwritten or built on: feature is at ${head?.slice(0, 8)}, was ${moved.slice(0, 8)}`)
      const failure = first!.attempts.at(-1)?.failure
      if (first!.run.state !== "Failed" || !/branch (feature )?moved since/.test(failure?.reason ?? "")) {
        problems.push(`the Run does not say the branch moved: ${describeRun(first!)}`)
      }

      // The moved head is new content: a new Event, waiting for its own approval.
      const next = yield* eventually(
        "the moved head comes back as a new Run waiting for approval",
        Effect.map(board<NeedsYouView>(daemon.board, "/api/needs-you"), (view) =>
          Option.fromNullable(view.waiting.find((w) => w.run.number === pull.number && w.run.id !== first!.run.id)))
      )
      if (!next.task.includes(`observed ${moved}`)) problems.push(`the new Run's task does not name the moved head: ${next.task}`)
      yield* board(daemon.board, `/runs/${next.run.id}/approve`, "POST")
      const runs = yield* eventually(
        "the new Run ends",
        Effect.map(board<RunsJson>(daemon.board, "/api/runs"), ({ page }) =>
          Option.fromNullable(page.runs.find((r) => r.id === next.run.id && TERMINAL.includes(r.state))))
      )
      const second = yield* board<RunView>(daemon.board, `/api/runs/${runs.id}`)
      if (second.run.state !== "Succeeded") problems.push(`the approved new head did not go through: ${describeRun(second)}`)
      const parent = (yield* Effect.orDie(runGit(daemon.dir, `--git-dir=${daemon.remoteGitDir}`, "rev-parse", "feature^"))).trim()
      if (parent !== moved) problems.push(`the second Run's work is not built on the moved head (feature^ is ${parent.slice(0, 8)})`)
      const [hold] = yield* settledRuns(daemon, [holder])
      if (hold!.run.state !== "Succeeded") problems.push(`the Run holding the slot did not succeed: ${describeRun(hold!)}`)

      assert.deepStrictEqual(problems, [])
      assert.deepStrictEqual(markersLeft(daemon), [])
      assert.deepStrictEqual(listenerFindings(daemon), [])
      yield* daemon.usine.signal("SIGTERM")
      assert.strictEqual(yield* daemon.usine.exit("60 seconds"), 0, daemon.usine.stderr())
    }), 240_000)
})
