import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { BoardView } from "@usine/board/BoardViews/boardView"
import { REPOSITORY } from "./support/daemonConfig"
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
          Effect.map(gh<ReadonlyArray<{ body: string }>>(`/issues/${good.number}/comments`), (list) =>
            Option.liftPredicate(list, (l) => l.length === 1 && l[0]!.body.includes("succeeded")))
        )
        assert.match(comments[0]!.body, /Run \[`[^`]+`\]\(http:\/\/127\.0\.0\.1:\d+\/runs\/[^)]+\) succeeded/)
        assert.include(comments[0]!.body, `Pull request: #${pull.number}`)

        yield* Effect.promise(() => sim.control.mergePullRequest({ repo: REPOSITORY, number: pull.number }))
        const closed = yield* gh<Issue>(`/issues/${good.number}`)
        assert.strictEqual(closed.state, "closed", "merging the pull request closed its issue")

        // An issue the demo agent does not know: its Attempt fails and the Item moves to the failed label.
        // Its first label write is refused: the write-back is tried again, and the Run goes on regardless.
        const bad = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "Rename the project", body: "" }))
        yield* Effect.promise(() =>
          sim.control.setFault({ method: "POST", path: `/repos/${REPOSITORY}/issues/${bad.number}/labels`, status: 403, times: 1 })
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
        assert.strictEqual((yield* gh<ReadonlyArray<unknown>>(`/issues/${good.number}/comments`)).length, 1)
        assert.notInclude(usine.stdout(), `write-back running of ${REPOSITORY}#${good.number} failed`)
      }),
    240_000
  )
})
