import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { AuditView } from "@usine/board/AuditTrail/auditView"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { act, browser, signIn } from "./support/signInBrowser"
import { upIn, upWorld } from "./support/upWorld"

/** A `command` agent that appends a line to CHANGES.md: a diff for the pull-request gate to hold. */
const WRITER = `#!/bin/sh
echo "a change" >> CHANGES.md
`

/** An issue Loop on `label` run by the writer, with `approval` as written. */
const teamLoop = (name: string, label: string, approval: string) => `
  - name: ${name}
    on: issues
    if: '"${label}" in item.labels'
    prompt: "Fix issue #{{ item.number }}: {{ item.title }}"
    agent: writer
    approval: ${approval}`

const LABELS = `labels:
  - {name: ready-for-agent, color: "0e8a16"}
  - {name: team-ready, color: "0e8a16"}
  - {name: later, color: "cccccc"}`

/** The Run of issue `number` in a Needs you list, once there is one. */
const needing = (url: string, list: "waiting" | "reviewing", number: number) =>
  eventually(
    `the Run of #${number} is ${list}`,
    Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view[list].find((entry) => entry.run.number === number))),
    90
  )

/** Sets up a team of three on acme/widgets, signs them in with GitHub, and starts a daemon with two Loops. */
const teamWorld = Effect.gen(function* () {
  const world = yield* upWorld
  const { dir, port, sim } = world
  const origin = `http://127.0.0.1:${port}`
  yield* Effect.promise(async () => {
    await sim.control.createUser({ login: "dana", permission: "none", repositories: { [REPOSITORY]: "write" } })
    await sim.control.createUser({ login: "tom", permission: "none", repositories: { [REPOSITORY]: "triage" } })
  })
  const app = yield* Effect.promise(() => sim.control.createOAuthApp({ callbackUrl: `${origin}/auth/github/callback`, name: "usine" }))
  const secretFile = join(dir, "oauth-secret")
  writeFileSync(secretFile, `${app.clientSecret}\n`)
  chmodSync(secretFile, 0o600)
  writeFileSync(join(dir, "writer.sh"), WRITER)
  chmodSync(join(dir, "writer.sh"), 0o755)
  const team = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "four eyes", body: "fix it" }))
  const solo = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "one person", body: "fix it" }))
  const { url } = yield* upIn(world, {
    loops: [
      teamLoop("team", "team-ready", "{start: required, by: other_than_labeller, pull_request: {by: other_than_approver}}"),
      teamLoop("solo", "ready-for-agent", "required")
    ],
    edit: (yaml) =>
      yaml
        .replace(/labels:\n {2}- \{name: ready-for-agent, color: "0e8a16"\}/, LABELS)
        .replace("agents:\n", `agents:\n  writer: {harness: command, command: [sh, ${JSON.stringify(join(dir, "writer.sh"))}]}\n`)
        .replace(
          `  token: ${BOARD_TOKEN}`,
          `  token: ${BOARD_TOKEN}\n  host_name: ${origin}\n  auth:\n    github:\n      client_id: ${app.clientId}\n` +
            `      client_secret_file: ${JSON.stringify(secretFile)}\n` +
            `  columns:\n    - {name: Ready, label: ready-for-agent}\n    - {name: Later, label: later}`
        )
  })
  // dana labels both issues: she starts both Runs.
  yield* Effect.promise(async () => {
    await sim.control.addLabels({ repo: REPOSITORY, number: team.number, labels: ["team-ready"], actor: "dana" })
    await sim.control.addLabels({ repo: REPOSITORY, number: solo.number, labels: ["ready-for-agent"], actor: "dana" })
  })
  const people = { dana: browser(), tom: browser() }
  return { ...world, url, team, solo, people }
})

describe("usine up: a team on one daemon", () => {
  it.scopedLive("four eyes: the labeller cannot approve the start, nor the start's approver the pull request; a promotion counts at once; a GitHub refusal reads the role again", () =>
    Effect.gen(function* () {
      const { people, sim, solo, team, url } = yield* teamWorld
      const { dana, tom } = people
      const teamRun = (yield* needing(url, "waiting", team.number)).run.id
      const soloRun = (yield* needing(url, "waiting", solo.number)).run.id
      assert.strictEqual((yield* signIn(dana, url, "dana")).status, 200)
      assert.strictEqual((yield* signIn(tom, url, "tom")).status, 200)

      // The labeller's approval of the start is refused, naming the rule; on a Loop without `by:` hers works as before.
      const danaStarts = yield* act(dana, url, `/runs/${teamRun}/approve`)
      assert.strictEqual(danaStarts.status, 403, JSON.stringify(danaStarts.body))
      assert.strictEqual(danaStarts.body["error"], "FourEyesRefused")
      assert.strictEqual(danaStarts.body["rule"], "other_than_labeller")
      assert.include(String(danaStarts.body["message"]), "needs another person than @dana, who labelled its Item (approval.by: other_than_labeller)")
      const danaSolo = yield* act(dana, url, `/runs/${soloRun}/approve`)
      assert.strictEqual(danaSolo.status, 200, JSON.stringify(danaSolo.body))

      // tom is a triager: refused, and his role is now cached. Promoted on GitHub, his next click counts at once.
      const tomStarts = yield* act(tom, url, `/runs/${teamRun}/approve`)
      assert.strictEqual(tomStarts.body["error"], "RoleTooLow")
      yield* Effect.promise(() => sim.control.setPermission({ login: "tom", repo: REPOSITORY, permission: "write" }))
      const promoted = yield* act(tom, url, `/runs/${teamRun}/approve`)
      assert.strictEqual(promoted.status, 200, JSON.stringify(promoted.body))
      assert.strictEqual(promoted.body["approved"], true)

      // At the pull-request gate the start's approver is barred; dana, who only labelled, may approve it.
      yield* needing(url, "reviewing", team.number)
      const tomReviews = yield* act(tom, url, `/runs/${teamRun}/approve-pull-request`)
      assert.strictEqual(tomReviews.status, 403, JSON.stringify(tomReviews.body))
      assert.strictEqual(tomReviews.body["error"], "FourEyesRefused")
      assert.include(String(tomReviews.body["message"]), "@tom, who approved its start (approval.pull_request.by: other_than_approver)")
      const danaReviews = yield* act(dana, url, `/runs/${teamRun}/approve-pull-request`)
      assert.strictEqual(danaReviews.status, 200, JSON.stringify(danaReviews.body))
      const view = yield* board<RunView>(url, `/api/runs/${teamRun}`)
      assert.strictEqual(view.timeline.find((entry) => entry.what === "Waiting → Queued")?.by, "tom")
      assert.strictEqual(view.timeline.find((entry) => entry.what.startsWith("Reviewing →"))?.by, "dana")

      // The audit names the person behind each pull request the agent opened: who let it through the gate, else who
      // approved the start.
      const opened = yield* eventually(
        "both pull requests are in the audit",
        Effect.map(board<AuditView>(url, "/api/audit?action=openPullRequest"), (audit) =>
          Option.some(audit.entries).pipe(Option.filter((entries) => entries.length === 2)))
      )
      assert.deepStrictEqual(
        opened.map((e) => [e.runId, e.by, e.for, e.repository]).sort(),
        [[teamRun, "agent", "dana", REPOSITORY], [soloRun, "agent", "dana", REPOSITORY]].sort()
      )
      const toms = yield* board<AuditView>(url, "/api/audit?login=tom")
      assert.deepStrictEqual(toms.entries.map((e) => `${e.action} ${e.outcome}`), [
        "approvePullRequest refused",
        "approve done",
        "approve refused"
      ])

      // tom is demoted to read while his cached role still says write. GitHub refuses the card move's label write:
      // the Board reads his role again and names it, rather than answering GitHub's error.
      yield* Effect.promise(() => sim.control.setPermission({ login: "tom", repo: REPOSITORY, permission: "read" }))
      yield* Effect.promise(() =>
        sim.control.setFault({ method: "DELETE", path: "/repos/*/*/issues/*/labels/*", status: 403, rateLimit: "none", times: 1 })
      )
      const tomMoves = yield* act(tom, url, "/board/move", { repository: REPOSITORY, number: solo.number, column: "Later" })
      assert.strictEqual(tomMoves.status, 403, JSON.stringify(tomMoves.body))
      assert.strictEqual(tomMoves.body["error"], "RoleTooLow")
      assert.strictEqual(tomMoves.body["held"], "read")
    }), 240_000)
})
