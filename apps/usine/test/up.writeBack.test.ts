import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { BoardView } from "@usine/board/BoardViews/boardView"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN, REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"

const LABELS = [
  "  - {name: agent-working, color: fbca04}",
  "  - {name: ready-for-review, color: 1d76db}",
  "  - {name: agent-failed, color: d93f0b}",
  "  - {name: usine, color: ededed}"
].join("\n")

const COLUMNS = `  columns:
    - {name: Ready, label: ready-for-agent}
    - {name: Working, label: agent-working}
    - {name: Review, label: ready-for-review}
    - {name: Failed, label: agent-failed}
`

const WRITE_BACK_LOOP = `
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: none
    retry_backoff: []
    status_labels:
      running: {add: [agent-working], remove: [ready-for-agent]}
      succeeded: {add: [ready-for-review], remove: [agent-working]}
      failed: {add: [agent-failed], remove: [agent-working]}
    pull_request: {labels: [usine]}
    comment: true`

interface Issue {
  readonly state: string
  readonly labels: ReadonlyArray<{ readonly name: string }>
  readonly pull_request?: unknown
}

/** An approved Loop whose pull request asks the labeller, the approver, an unknown login and usine's own account to review. */
const REVIEWED_LOOP = `
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: required
    retry_backoff: []
    status_labels:
      running: {add: [agent-working], remove: [ready-for-agent]}
      succeeded: {add: [ready-for-review], remove: [agent-working]}
    pull_request: {reviewers: [labeller, approver, nobody-here, usine-bot]}
    comment: true`

/** The emulator's view of the world's repository, with the bot's token. */
const githubOf = (world: Effect.Effect.Success<typeof upWorld>) => {
  const gh = <A>(path: string) =>
    json<A>(`${world.sim.url}/repos/${REPOSITORY}${path}`, { headers: { authorization: `token ${world.token}` } })
  const labelsOf = (number: number) => Effect.map(gh<Issue>(`/issues/${number}`), (issue) => issue.labels.map((l) => l.name).sort())
  const labelled = (number: number, labels: ReadonlyArray<string>, seconds = 90) =>
    eventually(
      `#${number} has labels ${labels.join(", ")}`,
      Effect.map(labelsOf(number), (now) => Option.liftPredicate(now, (l) => l.join() === [...labels].sort().join())),
      seconds
    )
  const commentsOf = (number: number) => gh<ReadonlyArray<{ body: string }>>(`/issues/${number}/comments`)
  return { gh, labelsOf, labelled, commentsOf }
}

/** The Run page as a browser gets it. */
const runPageHtml = (url: string, runId: string) =>
  Effect.promise(() =>
    fetch(`${url.replace(/\/$/, "")}/runs/${runId}`, { headers: { authorization: `Bearer ${BOARD_TOKEN}`, accept: "text/html" } })
      .then((response) => response.text()))

describe("usine up: write-back", () => {
  it.scopedLive(
    "the Item's labels move ready-for-agent → agent-working → ready-for-review (agent-failed on failure), the Board's card follows without a move, one comment is edited in place, and merging the pull request closes the issue",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        const { sim, token } = world
        const gh = <A>(path: string) => json<A>(`${sim.url}/repos/${REPOSITORY}${path}`, { headers: { authorization: `token ${token}` } })
        const labelsOf = (number: number) => Effect.map(gh<Issue>(`/issues/${number}`), (issue) => issue.labels.map((l) => l.name).sort())
        const columnOf = (url: string, number: number) =>
          Effect.map(board<BoardView>(url, "/api/board"), (view) =>
            view.columns.find((column) => column.cards.some((card) => card.number === number))?.name)
        const inColumn = (url: string, number: number, column: string, labels: ReadonlyArray<string>) =>
          eventually(
            `#${number} in ${column} with labels ${labels.join(", ")}`,
            Effect.gen(function* () {
              const now = yield* labelsOf(number)
              const where = yield* columnOf(url, number)
              return Option.liftPredicate({ now, where }, (seen) => seen.where === column && seen.now.join() === [...labels].sort().join())
            }),
            90
          )

        const good = yield* Effect.promise(() =>
          sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" })
        )
        const { usine, url } = yield* upIn(world, {
          extra: LABELS,
          loops: [WRITE_BACK_LOOP],
          agentDelay: 6,
          // The kit writes the Board's section; its columns go under it.
          edit: (yaml) => yaml.replace(/(board:\n  listen: .*\n  token: .*\n)/, `$1${COLUMNS}`)
        })
        yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: good.number, labels: ["ready-for-agent"] }))
        yield* inColumn(url, good.number, "Working", ["agent-working"])
        yield* usine.waitFor(/msg="attempt 1 succeeded/, "90 seconds")
        yield* inColumn(url, good.number, "Review", ["ready-for-review"])

        const pulls = yield* gh<ReadonlyArray<{ number: number; body: string; labels: ReadonlyArray<{ name: string }> }>>("/pulls?state=open")
        assert.strictEqual(pulls.length, 1)
        const pull = pulls[0]!
        assert.include(pull.body, `Closes #${good.number}`)
        yield* eventually("the pull request carries its label", Effect.map(labelsOf(pull.number), (labels) => Option.liftPredicate(labels, (l) => l.includes("usine"))))

        const comments = yield* eventually(
          "one comment links the Run and its pull request",
          Effect.map(gh<ReadonlyArray<{ id: number; body: string }>>(`/issues/${good.number}/comments`), (list) =>
            Option.liftPredicate(list, (l) => l.length === 1 && l[0]!.body.includes("succeeded")))
        )
        assert.match(comments[0]!.body, /Run \[`[^`]+`\]\(http:\/\/127\.0\.0\.1:\d+\/runs\/[^)]+\) succeeded/)
        assert.include(comments[0]!.body, `Pull request: #${pull.number}`)
        // Edited in place: GitHub was asked to create one comment, then to edit that same comment as the Run moved.
        const writes = (yield* Effect.promise(() => sim.control.requestLog())).filter((r) => r.method !== "GET" && r.path.includes("comments"))
        const commentId = comments[0]!.id
        assert.deepStrictEqual(
          writes.filter((r) => r.method === "POST").map((r) => [r.path, r.status]),
          [[`/repos/${REPOSITORY}/issues/${good.number}/comments`, 201]],
          "one comment created"
        )
        const edits = writes.filter((r) => r.method === "PATCH")
        assert.isAtLeast(edits.length, 1, "then edited")
        for (const edit of edits) assert.strictEqual(edit.path, `/repos/${REPOSITORY}/issues/comments/${commentId}`)

        yield* Effect.promise(() => sim.control.mergePullRequest({ repo: REPOSITORY, number: pull.number }))
        const closed = yield* gh<Issue>(`/issues/${good.number}`)
        assert.strictEqual(closed.state, "closed", "merging the pull request closed its issue")

        // An issue the demo agent does not know: its Attempt fails and the Item moves to the failed label.
        // Its first label write is refused: the write-back is tried again, and the Run goes on regardless.
        const bad = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "Rename the project", body: "" }))
        yield* Effect.promise(() =>
          sim.control.setFault({ method: "POST", path: `/repos/${REPOSITORY}/issues/${bad.number}/labels`, status: 422, times: 1 })
        )
        yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: bad.number, labels: ["ready-for-agent"] }))
        yield* usine.waitFor(new RegExp(`write-back running of ${REPOSITORY}#${bad.number} failed \\(try 1\\)`), "60 seconds")
        yield* inColumn(url, bad.number, "Failed", ["agent-failed"])
        // The label move and the comment's edit are separate writes of the outbox: the edit may land a moment later.
        const badComments = yield* eventually(
          "the failed Run's comment is edited to say so",
          Effect.map(gh<ReadonlyArray<{ body: string }>>(`/issues/${bad.number}/comments`), (list) =>
            Option.liftPredicate(list, (l) => l.some((c) => c.body.includes("failed")))),
          30
        )
        assert.strictEqual(badComments.length, 1, "one comment, edited from running to failed")
        const runs = yield* board<{ page: { runs: ReadonlyArray<{ id: string; number?: number }> } }>(url, "/api/runs")
        const badRun = runs.page.runs.find((r) => r.number === bad.number)!
        const shown = yield* board<RunView>(url, `/api/runs/${badRun.id}`)
        assert.deepStrictEqual(shown.writeBack.map((w) => [w.phase, w.status, w.tries]), [["running", "recovered", 1]], "the refused try shows on the Run")
        assert.strictEqual((yield* gh<ReadonlyArray<unknown>>(`/issues/${good.number}/comments`)).length, 1)
        assert.notInclude(usine.stdout(), `write-back running of ${REPOSITORY}#${good.number} failed`)
      }),
    240_000
  )

  it.scopedLive(
    "reviewers: the labeller is asked; approver is board.operator (asked beside the labeller), an unknown login and usine's own account are notes on the Run; a write-back GitHub keeps refusing shows on the Run page and its API while the Run succeeds; a canceled Run takes off its running label and its comment says canceled",
    () =>
      Effect.gen(function* () {
        const world = yield* upWorld
        const { sim } = world
        const github = githubOf(world)
        yield* Effect.promise(() => sim.control.createUser({ login: "carol", permission: "write" }))
        yield* Effect.promise(() => sim.control.createUser({ login: "dana", permission: "write" }))
        const reviewed = yield* Effect.promise(() =>
          sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))
        const refused = yield* Effect.promise(() =>
          sim.control.createIssue({ repo: REPOSITORY, title: "Add deslugify", body: "The inverse of slugify." }))
        const canceled = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "Rename the project", body: "" }))
        // dana operates the Board: its approvals are hers, so `approver` names her.
        const { url, usine } = yield* upIn(world, {
          extra: LABELS,
          loops: [REVIEWED_LOOP],
          agentDelay: 8,
          edit: (yaml) => yaml.replace("board:\n", "board:\n  operator: dana\n")
        })
        const approve = (number: number) =>
          Effect.gen(function* () {
            const runId = yield* eventually(`a Run of #${number} waits for approval`, Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
              Option.fromNullable(view.waiting.find((w) => w.run.number === number)?.run.id)))
            yield* board(url, `/runs/${runId}/approve`, "POST")
            return runId
          })
        const runOf = (runId: string) => board<RunView>(url, `/api/runs/${runId}`)

        // Every label write on the second issue is refused until the fault is cleared (a 422: a 403 here is a rate limit).
        const fault = `/repos/${REPOSITORY}/issues/${refused.number}/labels`
        yield* Effect.promise(() => sim.control.setFault({ method: "POST", path: fault, status: 422 }))
        for (const issue of [reviewed, refused]) {
          yield* Effect.promise(() =>
            sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"], actor: "carol" }))
        }
        const reviewedRun = yield* approve(reviewed.number)
        const refusedRun = yield* approve(refused.number)

        const succeeded = yield* eventually("the reviewed Run's write-back names its skipped reviewers", Effect.map(runOf(reviewedRun), (view) =>
          Option.liftPredicate(view, (v) => v.run.state === "Succeeded" && v.writeBack.some((w) => w.phase === "succeeded"))), 120)
        const notes = succeeded.writeBack.find((w) => w.phase === "succeeded")!
        assert.strictEqual(notes.status, "done")
        assert.strictEqual(notes.notes.length, 2, notes.notes.join("\n"))
        assert.match(notes.notes[0]!, /^reviewer usine-bot skipped: usine-bot is usine's own account/)
        assert.match(notes.notes[1]!, /^reviewer nobody-here refused: .*collaborators/)
        const pull = succeeded.result?.pullRequestNumber
        assert.isDefined(pull)
        const requested = yield* github.gh<{ requested_reviewers: ReadonlyArray<{ login: string }> }>(`/pulls/${pull}`)
        assert.deepStrictEqual(requested.requested_reviewers.map((r) => r.login), ["carol", "dana"], "the labeller and the approver (board.operator), once each")
        yield* github.labelled(reviewed.number, ["ready-for-review"])
        const reviewedPage = yield* runPageHtml(url, reviewedRun)
        assert.include(reviewedPage, 'data-testid="write-back"')
        assert.include(reviewedPage, "reviewer nobody-here refused")

        // The refused write-back is retried and shown with its error and tries; the Run succeeds regardless.
        const failing = yield* eventually("the refused write-back shows on the Run", Effect.map(runOf(refusedRun), (view) =>
          Option.liftPredicate(view, (v) => v.run.state === "Succeeded" && (v.writeBack[0]?.tries ?? 0) >= 2)), 120)
        assert.deepStrictEqual([failing.writeBack[0]?.phase, failing.writeBack[0]?.status], ["running", "retrying"])
        assert.match(failing.writeBack[0]?.lastError ?? "", /POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/labels failed with 422/)
        const failingPage = yield* runPageHtml(url, refusedRun)
        assert.match(failingPage, /data-phase="running" data-status="retrying"/)
        assert.match(failingPage, /running: retrying after \d+ tries/)
        assert.match(failingPage, /<pre data-testid="write-back-error">[^<]*failed with 422/)
        yield* Effect.promise(() => sim.control.clearFaults())
        yield* github.labelled(refused.number, ["ready-for-review"], 60)
        const recovered = yield* runOf(refusedRun)
        assert.strictEqual(recovered.writeBack[0]?.status, "recovered")

        // Canceled while its agent waits: the running label goes, nothing puts the trigger label back, the comment says so.
        yield* Effect.promise(() =>
          sim.control.addLabels({ repo: REPOSITORY, number: canceled.number, labels: ["ready-for-agent"], actor: "carol" }))
        const canceledRun = yield* approve(canceled.number)
        // Canceled while its agent runs (8 s): waiting for the running label instead could miss that window under load.
        yield* eventually("the Run to cancel is running", Effect.map(runOf(canceledRun), (view) =>
          Option.liftPredicate(view, (v) => v.run.state === "Running")), 60)
        yield* board(url, `/runs/${canceledRun}/cancel`, "POST")
        // Write-backs go in the Run's order: once the comment says canceled, the running label was put on and taken off.
        const comments = yield* eventually("the canceled Run's comment says canceled", Effect.map(github.commentsOf(canceled.number), (list) =>
          Option.liftPredicate(list, (l) => l.some((c) => c.body.includes("was canceled")))), 30)
        yield* github.labelled(canceled.number, [], 30)
        const events = yield* github.gh<ReadonlyArray<{ event: string; label?: { name: string } }>>(`/issues/${canceled.number}/events`)
        assert.deepStrictEqual(
          events.filter((e) => e.label?.name === "agent-working").map((e) => e.event),
          ["labeled", "unlabeled"],
          "running put the label on, canceled took it off"
        )
        assert.strictEqual(comments.length, 1, "one comment, edited from running to canceled")
        assert.include(comments[0]!.body, "was canceled (OperatorCanceled)")
        assert.strictEqual((yield* runOf(canceledRun)).run.state, "Canceled")
        assert.notInclude(usine.stdout(), "write-back canceled")
      }),
    300_000
  )
})
