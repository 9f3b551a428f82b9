import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { REPOSITORY } from "./support/daemonConfig"
import { json } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"

const DRAFT_LOOP = `
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: none
    pull_request: {closes: false, draft: true}`

interface Pull {
  readonly number: number
  readonly draft: boolean
  readonly body: string | null
}

describe("usine up: pull_request options", () => {
  it.scopedLive("closes: false writes no closing keyword, so merging leaves the issue open; draft: true opens the pull request as a draft", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim, token } = world
      const gh = <A>(path: string) => json<A>(`${sim.url}/repos/${REPOSITORY}${path}`, { headers: { authorization: `token ${token}` } })
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!", labels: ["ready-for-agent"] })
      )
      const { usine } = yield* upIn(world, { loops: [DRAFT_LOOP] })
      // The Attempt's outcome names the pull request it opened.
      yield* usine.waitFor(/msg="attempt 1 succeeded: \S+\/pull\/\d+/, "90 seconds")
      const pulls = yield* gh<ReadonlyArray<Pull>>("/pulls?state=open")
      assert.strictEqual(pulls.length, 1)
      const pull = yield* gh<Pull>(`/pulls/${pulls[0]!.number}`)
      assert.isTrue(pull.draft, "opened as a draft")
      assert.notMatch(pull.body ?? "", /\b(close[sd]?|fix(e[sd])?|resolve[sd]?)\b:?\s+#\d/i, "no closing keyword")

      yield* Effect.promise(() => sim.control.mergePullRequest({ repo: REPOSITORY, number: pull.number }))
      const after = yield* gh<{ state: string }>(`/issues/${issue.number}`)
      assert.strictEqual(after.state, "open", "merging did not close the issue")
    }), 240_000)
})
