import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { runGit } from "@usine/github-sim/git/runGit"
import { REPOSITORY } from "./support/daemonConfig"
import { board, json } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"

const CHECKS_LOOP = `
  - name: fix-checks
    on: pull_requests
    if: 'item.kind == "pull_request" && item.state == "open" && item.checks.failed > 0'
    prompt: |
      The checks of pull request #{{ item.number }} fail (slugify keeps punctuation). Failing:
      {% for check in item.checks.all %}{% if check.conclusion == "failure" %}- {{ check.name }} ({{ check.url }})
      {% endif %}{% endfor %}
    agent: demo
    approval: none`

// Asynchronous: the emulator answers git in this very process.
const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Effect.map(runGit(["-C", cwd, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", ...args]), (out) => out.trim())

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly loop: string; readonly state: string }> }
}

describe("usine up: CI feedback", () => {
  it.scopedLive("a pull request with a failing check opens a Run of a checks Loop whose prompt lists the failing check; its agent's commit lands on the pull request's branch", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim, token } = world
      const clone = join(dir, "clone")
      yield* git(dir, "clone", "-q", sim.authenticatedCloneUrl(REPOSITORY, token), clone)
      yield* git(clone, "checkout", "-q", "-b", "touch-readme")
      writeFileSync(join(clone, "README.md"), "# slugger\n\nSlugs for titles.\n")
      yield* git(clone, "commit", "-q", "-am", "Describe slugger")
      yield* git(clone, "push", "-q", "origin", "touch-readme")
      const opened = yield* git(clone, "rev-parse", "HEAD")
      const pull = yield* Effect.promise(() =>
        sim.control.createPullRequest({ repo: REPOSITORY, head: "touch-readme", title: "Describe slugger", body: "README only." })
      )
      yield* Effect.promise(() =>
        sim.control.addCheckRun({ repo: REPOSITORY, number: pull.number, name: "unit-tests", conclusion: "failure", detailsUrl: "https://ci.example/runs/41" })
      )
      yield* Effect.promise(() => sim.control.addCheckRun({ repo: REPOSITORY, number: pull.number, name: "lint", conclusion: "success" }))
      yield* Effect.promise(() => sim.control.addCommitStatus({ repo: REPOSITORY, number: pull.number, context: "coverage", state: "pending" }))

      const { usine, url } = yield* upIn(world, { loops: [CHECKS_LOOP] })
      yield* usine.waitFor(/msg="attempt 1 succeeded/, "120 seconds")
      const runs = yield* board<RunsJson>(url, "/api/runs")
      const run = runs.page.runs.find((r) => r.loop === "fix-checks")
      assert(run !== undefined)
      const view = yield* board<RunView & { readonly task?: string; readonly run?: { readonly task?: string } }>(url, `/api/runs/${run.id}`)
      const task = JSON.stringify(view)
      assert.include(task, "- unit-tests (https://ci.example/runs/41)", "the prompt lists the failing check")
      assert.notInclude(task, "- lint", "and not the passing one")

      const head = yield* json<{ head: { ref: string; sha: string } }>(`${sim.url}/repos/${REPOSITORY}/pulls/${pull.number}`, {
        headers: { authorization: `token ${token}` }
      })
      assert.strictEqual(head.head.ref, "touch-readme")
      assert.notStrictEqual(head.head.sha, opened, "the agent's commit moved the pull request's head")
      yield* git(clone, "fetch", "-q", "origin")
      assert.strictEqual(yield* git(clone, "rev-parse", "origin/touch-readme"), head.head.sha)
      // What lands is usine's commit of the agent's tree (issue 31), its message usine's: the agent's subject stays behind.
      assert.strictEqual((yield* git(clone, "log", "--format=%s", `${opened}..origin/touch-readme`)).trim(), `fix-checks: work on #${pull.number}`)
      assert.notStrictEqual((yield* git(clone, "diff", "--stat", opened, "origin/touch-readme")).trim(), "", "the agent's change is in it")
      assert.strictEqual(yield* git(clone, "merge-base", opened, "origin/touch-readme"), opened, "on top of the pull request's head")
      // The new head has no failing check: the Loop's if: no longer holds, and no second Run opens.
      yield* Effect.sleep("4 seconds")
      const after = yield* board<RunsJson>(url, "/api/runs")
      assert.strictEqual(after.page.runs.filter((r) => r.loop === "fix-checks").length, 1)
    }), 240_000)
})
