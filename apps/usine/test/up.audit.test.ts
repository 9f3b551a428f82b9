import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { AuditEntryView, AuditView } from "@usine/board/AuditTrail/auditView"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { act, browser, signIn } from "./support/signInBrowser"
import { upIn, upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

/** A `command` agent that works for two minutes: a Run stays Running for messages and a cancel. */
const SLOW = `#!/bin/sh
sleep 120
`

const slowLoop = `
  - name: slow
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix issue #{{ item.number }}: {{ item.title }}"
    agent: slow
    approval: required`

const MESSAGE = "look at the fixture in test/data first"

/** Each entry as `who action outcome`, newest first. */
const lines = (entries: ReadonlyArray<AuditEntryView>) => entries.map((e) => `${e.by} ${e.action} ${e.outcome}`)

describe("usine up: the audit", () => {
  it.scopedLive("names each person's action and the token's, refusals included, on the Audit page, /api/audit and `usine audit`", () =>
    Effect.gen(function* () {
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
      writeFileSync(join(dir, "slow.sh"), SLOW)
      chmodSync(join(dir, "slow.sh"), 0o755)
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "audit me", body: "fix it" }))
      const { url } = yield* upIn(world, {
        loops: [slowLoop],
        edit: (yaml) =>
          yaml
            .replace("agents:\n", `agents:\n  slow: {harness: command, command: [sh, ${JSON.stringify(join(dir, "slow.sh"))}]}\n`)
            .replace(
              `  token: ${BOARD_TOKEN}`,
              `  token: ${BOARD_TOKEN}\n  host_name: ${origin}\n  auth:\n    github:\n      client_id: ${app.clientId}\n` +
                `      client_secret_file: ${JSON.stringify(secretFile)}`
            )
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const runId = (yield* eventually(
        "the Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting.find((e) => e.run.number === issue.number)))
      )).run.id
      const dana = browser()
      const tom = browser()
      assert.strictEqual((yield* signIn(dana, url, "dana")).status, 200)
      assert.strictEqual((yield* signIn(tom, url, "tom")).status, 200)

      // tom, a triager, may not approve; dana may. She then writes to the agent; tom cancels, which triage allows.
      assert.strictEqual((yield* act(tom, url, `/runs/${runId}/approve`)).body["error"], "RoleTooLow")
      assert.strictEqual((yield* act(dana, url, `/runs/${runId}/approve`)).status, 200)
      const attemptId = yield* eventually(
        "the Run's Attempt is open",
        Effect.map(board<RunView>(url, `/api/runs/${runId}`), (view) =>
          Option.fromNullable(view.run.state === "Running" ? view.attempts.find((a) => a.outcome === "Open")?.id : undefined))
      )
      // Until the agent's session runs, the message is refused (409 SessionGone): no action, so not in the audit.
      yield* eventually(
        "dana's message reaches the session",
        Effect.map(act(dana, url, `/runs/${runId}/intervene`, { attemptId, message: MESSAGE }), (sent) => Option.some(sent).pipe(Option.filter((s) => s.status === 200)))
      )
      assert.strictEqual((yield* act(tom, url, `/runs/${runId}/cancel`)).status, 200)
      // The Board token acts as `operator`.
      yield* board(url, "/loops/slow/pause", "POST")

      const audit = yield* board<AuditView>(url, "/api/audit")
      assert.deepStrictEqual(lines(audit.entries), [
        "operator pause done",
        "tom cancel done",
        "dana intervene done",
        "dana approve done",
        "tom approve refused"
      ])
      for (const entry of audit.entries.slice(1)) {
        assert.deepStrictEqual([entry.repository, entry.item, entry.loop, entry.runId], [REPOSITORY, `${REPOSITORY}#${issue.number}`, "slow", runId])
      }
      assert.strictEqual(audit.entries[0]?.loop, "slow")
      assert.strictEqual(audit.entries[2]?.detail, MESSAGE, "the message is in the record, with who sent it")
      assert.include(audit.entries[4]?.result ?? "", "write")
      const toms = yield* board<AuditView>(url, "/api/audit?login=tom")
      assert.deepStrictEqual(lines(toms.entries), ["tom cancel done", "tom approve refused"])

      // A signed-in person reads the Audit page; the filter by person shows theirs only.
      const page = yield* dana.send(`${url}audit?login=dana`)
      assert.strictEqual(page.status, 200)
      assert.deepStrictEqual([...page.text.matchAll(/data-testid="audit-row" data-by="([^"]+)" data-action="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`), [
        "dana intervene",
        "dana approve"
      ])
      assert.include(page.text, MESSAGE)

      // `usine audit`: JSON Lines, the same records; filtered by login, repository and time; text for people.
      const all = yield* startUsine(dir, ["audit", "--json"])
      assert.strictEqual(yield* all.exit(), 0, all.stderr())
      const exported = all.stdout().trim().split("\n").map((line) => JSON.parse(line) as AuditEntryView)
      assert.deepStrictEqual(exported, audit.entries)
      const danas = yield* startUsine(dir, ["audit", "--json", "--login", "dana", "--repo", REPOSITORY, "--since", "1h"])
      assert.strictEqual(yield* danas.exit(), 0, danas.stderr())
      assert.deepStrictEqual(lines(danas.stdout().trim().split("\n").map((line) => JSON.parse(line) as AuditEntryView)), [
        "dana intervene done",
        "dana approve done"
      ])
      const future = yield* startUsine(dir, ["audit", "--since", "2999-01-01"])
      assert.strictEqual(yield* future.exit(), 0, future.stderr())
      assert.strictEqual(future.stdout(), "")
      const text = yield* startUsine(dir, ["audit", "--login", "tom"])
      assert.strictEqual(yield* text.exit(), 0, text.stderr())
      const [cancel, refused] = text.stdout().trim().split("\n")
      assert.match(cancel ?? "", new RegExp(`^\\S+Z  @tom  cancel  ${REPOSITORY}#${issue.number} run ${runId.slice(0, 8)} loop slow`))
      assert.match(refused ?? "", /@tom {2}approve \(refused\) .* → .*write/)
      const wrong = yield* startUsine(dir, ["audit", "--since", "yesterday-ish"])
      assert.strictEqual(yield* wrong.exit(), 1)
      assert.include(wrong.stderr(), "--since \"yesterday-ish\" is no time")
    }), 240_000)
})
