import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN, REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

/** A `command` agent that prints its prompt (each line a transcript row) and appends a line to CHANGES.md. */
const WRITER = `#!/bin/sh
echo "prompt follows"
cat "$USINE_PROMPT_FILE"
if grep -q JUDGE-WANTS-TESTS "$USINE_PROMPT_FILE"; then echo "with tests" >> CHANGES.md; else echo "a change" >> CHANGES.md; fi
`

/** A judge that asks for tests until the diff has them. */
const JUDGE = `#!/bin/sh
if grep -q "with tests" "$USINE_PROMPT_FILE"; then echo "the change has its tests"; echo "VERDICT: pass"
else echo "JUDGE-WANTS-TESTS: the change has no tests"; echo "VERDICT: feedback"; fi
`

/** A judge that is never satisfied. */
const NEVER_PLEASED = `#!/bin/sh
echo "NEVER-PLEASED: not yet"
echo "VERDICT: feedback"
`

const gateLoop = (name: string, label: string, keys: string) => `
  - name: ${name}
    on: issues
    if: '"${label}" in item.labels'
    prompt: "Fix issue #{{ item.number }}: {{ item.title }}"
    agent: writer
${keys}`

/** The world with the writer and judge agents declared; their scripts in the daemon's folder. */
const agentsIn = (dir: string) => (yaml: string) => {
  for (const [file, text] of [["writer.sh", WRITER], ["judge.sh", JUDGE], ["never.sh", NEVER_PLEASED]] as const) {
    writeFileSync(join(dir, file), text)
    chmodSync(join(dir, file), 0o755)
  }
  return yaml.replace(
    "agents:\n",
    `agents:\n  writer: {harness: command, command: [sh, ${JSON.stringify(join(dir, "writer.sh"))}]}\n  judge: {harness: command, command: [sh, ${JSON.stringify(join(dir, "judge.sh"))}]}\n  never: {harness: command, command: [sh, ${JSON.stringify(join(dir, "never.sh"))}]}\n`
  )
}

const runOf = (url: string, runId: string, attempt?: number) =>
  board<RunView>(url, `/api/runs/${runId}${attempt === undefined ? "" : `?attempt=${attempt}`}`)

const stateIs = (url: string, runId: string, state: string, attempts?: number) =>
  Effect.map(runOf(url, runId), (view) =>
    Option.liftPredicate(view, (v) => v.run.state === state && (attempts === undefined || v.attempts.length === attempts)))

/** The id of the first Run the daemon opened, once there is one. */
const firstRun = (url: string) =>
  eventually(
    "a Run opens",
    Effect.map(board<{ page: { runs: ReadonlyArray<{ id: string }> } }>(url, "/api/runs"), (view) => Option.fromNullable(view.page.runs[0]?.id)),
    60
  )

const post = (url: string, path: string, body: unknown) =>
  json(`${url.replace(/\/$/, "")}${path}`, { method: "POST", headers: { authorization: `Bearer ${BOARD_TOKEN}` }, body })

describe("usine up: the pull-request gate and the judge", () => {
  it.scopedLive("a Run parks with its diff and nothing on GitHub; Request changes reaches the agent and parks again; a SIGKILL while parked loses nothing; Approve PR opens the pull request; Reject salvages", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim, token } = world
      const remote = sim.authenticatedCloneUrl(REPOSITORY, token)
      // Asynchronously: the emulator answering this git call runs in this process.
      const branches = Effect.promise(() => promisify(execFile)("git", ["ls-remote", "--heads", remote], { encoding: "utf8" }).then((r) => r.stdout))
      const pulls = json<ReadonlyArray<{ number: number; body: string; head: { ref: string } }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=all`, {
        headers: { authorization: `Bearer ${token}` }
      })
      const first = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "add a changelog", body: "please" }))
      const second = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "another change", body: "please" }))
      const { url, usine } = yield* upIn(world, {
        loops: [gateLoop("gated", "ready-for-agent", "    approval: {start: none, pull_request: required}\n    verify: [\"test -f CHANGES.md\"]")],
        edit: agentsIn(dir)
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: first.number, labels: ["ready-for-agent"] }))

      const parked = yield* eventually(
        "the Run waits for review",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.reviewing[0])),
        90
      )
      const runId = parked.run.id
      assert.include(parked.patch, "+++ b/CHANGES.md")
      assert.include(parked.patch, "+a change")
      assert.strictEqual(parked.attemptNumber, 1)
      assert.notInclude((yield* branches), "refs/heads/usine/", "no branch is pushed before Approve PR")
      assert.deepStrictEqual(yield* pulls, [], "no pull request before Approve PR")
      const page = yield* Effect.promise(() => fetch(url, { headers: { authorization: `Bearer ${BOARD_TOKEN}` } }).then((r) => r.text()))
      assert.include(page, "Approve PR")
      assert.include(page, "CHANGES.md", "the diff is on the page")
      assert.include(page, "a change")

      yield* post(url, `/runs/${runId}/request-changes`, { text: "REVIEWER-SAYS: also mention the date" })
      yield* eventually("the second Attempt parks again", stateIs(url, runId, "Reviewing", 2), 90)
      const turn2 = yield* runOf(url, runId, 2)
      const said = turn2.transcript.lines.map((l) => l.text).join("\n")
      assert.include(said, "REVIEWER-SAYS: also mention the date", "the reviewer's text is in the second turn's prompt")
      assert.include(said, "Fix issue #", "with the task")
      const again = (yield* board<NeedsYouView>(url, "/api/needs-you")).reviewing.find((r) => r.run.id === runId)
      assert.strictEqual(again?.attemptNumber, 2)
      assert.include(again?.patch ?? "", "+a change\n+a change", "the second Attempt worked on the first one's work")

      // A crash while parked: nothing runs, nothing is lost.
      yield* usine.signal("SIGKILL")
      yield* usine.exit()
      const restarted = yield* startUsine(dir, ["up"])
      yield* restarted.waitFor(/usine is up as/)
      yield* Effect.sleep("3 seconds")
      const after = yield* runOf(url, runId)
      assert.strictEqual(after.run.state, "Reviewing")
      assert.strictEqual(after.attempts.length, 2, "no Attempt started by the restart")
      assert.notInclude((yield* branches), "refs/heads/usine/")

      yield* post(url, `/runs/${runId}/approve-pull-request`, {})
      const done = yield* eventually("the pull request opens", stateIs(url, runId, "Succeeded"), 90)
      assert.strictEqual(done.attempts.length, 3)
      assert.isDefined(done.result?.pullRequestNumber)
      const opened = yield* pulls
      assert.strictEqual(opened.length, 1)
      assert.match(opened[0]?.head.ref ?? "", /^usine\/gated\//)
      assert.include(opened[0]?.body ?? "", "Every `verify:` command passed in round 1", "the held Attempt's verification is the evidence")
      assert.include(opened[0]?.body ?? "", "test -f CHANGES.md")

      // Reject: Canceled, no pull request, the work on a salvage branch.
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: second.number, labels: ["ready-for-agent"] }))
      const other = yield* eventually(
        "the second Run waits for review",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.reviewing.find((r) => r.run.id !== runId))),
        90
      )
      const rejected = yield* post(url, `/runs/${other.run.id}/reject`, {}) as Effect.Effect<{ salvageBranch?: string }, unknown>
      assert.strictEqual(rejected.salvageBranch, `usine/salvage/${other.run.id}/1`)
      yield* eventually("the second Run is canceled", stateIs(url, other.run.id, "Canceled"), 30)
      assert.include((yield* branches), `refs/heads/usine/salvage/${other.run.id}/1`)
      assert.strictEqual((yield* pulls).length, 1, "no pull request for the rejected Run")
    }), 420_000)

  it.scopedLive("a judge answering feedback once, then pass, makes two agent turns and one pull request", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim, token } = world
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "judged", body: "please" }))
      const { url } = yield* upIn(world, {
        loops: [gateLoop("judged", "ready-for-agent", "    approval: none\n    judge: judge")],
        edit: agentsIn(dir)
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const runId = yield* firstRun(url)
      const done = yield* eventually("the Run succeeds", stateIs(url, runId, "Succeeded"), 120)
      assert.strictEqual(done.attempts.length, 1)
      const lines = done.transcript.lines.map((l) => l.text)
      assert.strictEqual(lines.filter((l) => l === "prompt follows").length, 2, "two agent turns")
      assert.isTrue(lines.some((l) => l.startsWith("judge judge: feedback\nJUDGE-WANTS-TESTS")), "the feedback verdict and its reasoning")
      assert.isTrue(lines.some((l) => l.startsWith("judge judge: pass\nthe change has its tests")), "the pass verdict")
      const pulls = yield* json<ReadonlyArray<{ number: number }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=all`, {
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(pulls.length, 1)
    }), 240_000)

  it.scopedLive("a judge that still asks for changes when verify_rounds are spent fails the Run as the agent's, with its reasoning, and opens no pull request", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim, token } = world
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "judged forever", body: "please" }))
      const { url } = yield* upIn(world, {
        loops: [gateLoop("picky", "ready-for-agent", "    approval: none\n    judge: never\n    verify_rounds: 1")],
        edit: agentsIn(dir)
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const runId = yield* firstRun(url)
      const failed = yield* eventually("the Run fails", stateIs(url, runId, "Failed"), 120)
      assert.strictEqual(failed.attempts.length, 1, "the judge's last word is the agent's failure: no automatic retry")
      const lines = failed.transcript.lines.map((l) => l.text)
      assert.strictEqual(lines.filter((l) => l === "prompt follows").length, 2, "the first turn and one feedback round")
      assert.strictEqual(lines.filter((l) => l.startsWith("judge never: feedback\nNEVER-PLEASED")).length, 2, "a verdict on each turn")
      assert.include(JSON.stringify(failed), "the judge never still asks for changes after 1 feedback round")
      const pulls = yield* json<ReadonlyArray<{ number: number }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=all`, {
        headers: { authorization: `Bearer ${token}` }
      })
      assert.strictEqual(pulls.length, 0, "nothing the judge refused is offered for review")
    }), 240_000)
})
