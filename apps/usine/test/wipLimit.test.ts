import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import type { UsageView } from "@usine/board/BoardViews/usageView"
import type { HeldRun } from "@usine/store/BrakeStore"
import { BOARD_TOKEN, REPOSITORY, SAMPLE_REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually, json } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

/**
 * A Claude-shaped scripted agent: it commits one file named after the issue, then reports its session total like
 * `claude -p --output-format stream-json` does (1,200 input tokens of which 200 cached, 300 output, $0.05).
 */
const AGENT_SCRIPT = `import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
const emit = (event) => process.stdout.write(JSON.stringify(event) + "\\n")
// Claude Code's streaming input (ADR 0062): the task is the first stream-json line on stdin, which stays open.
const prompt = await new Promise((resolve) => {
  let buffered = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk) => {
    buffered += chunk
    const end = buffered.indexOf("\\n")
    if (end >= 0) { process.stdin.destroy(); resolve(buffered.slice(0, end)) }
  })
})
const number = /#(\\d+)/.exec(prompt)?.[1] ?? "x"
emit({ type: "system", subtype: "init", session_id: "scripted-" + number, model: "scripted" })
writeFileSync("issue-" + number + ".md", "work on issue " + number + "\\n")
const git = (...args) => execFileSync("git", ["-c", "user.name=agent", "-c", "user.email=agent@usine.invalid", ...args])
git("add", "-A")
git("commit", "--quiet", "-m", "Work on issue " + number)
emit({ type: "assistant", message: { model: "scripted", content: [{ type: "text", text: "committed issue-" + number + ".md" }] } })
emit({ type: "result", subtype: "success", is_error: false, num_turns: 1,
  usage: { input_tokens: 1000, cache_read_input_tokens: 200, cache_creation_input_tokens: 0, output_tokens: 300 }, total_cost_usd: 0.05 })
`

const config = (options: { apiUrl: string; token: string; port: number; dir: string }) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: state/ledger.db
labels:
  - {name: ready-for-agent, color: "0e8a16"}
budget:
  daily_tokens: 100000
  daily_cost_usd: 5
board:
  listen: 127.0.0.1:${options.port}
  token: ${BOARD_TOKEN}
agents:
  scripted:
    harness: claude
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(options.dir, "agent.mjs"))}]
workers:
  local:
    root: ${JSON.stringify(join(options.dir, "workspaces"))}
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on issue #{{ item.number }}: {{ item.title }}"
    agent: scripted
    approval: none
    max_open_pull_requests: 1
    budget: {daily_tokens: 50000}
`

const PULL = /attempt 1 succeeded: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/(\d+)" run=([0-9a-f]{32})/g

describe("usine up with a WIP limit", () => {
  it.scopedLive("holds a new Run while the Loop's pull request is open; a merge, then a close without merge, frees the slot", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
      const issue = (title: string) => Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body: title }))
      const [a, b, c] = [yield* issue("first change"), yield* issue("second change"), yield* issue("third change")]
      const port = yield* freePort
      writeFileSync(join(dir, "agent.mjs"), AGENT_SCRIPT)
      writeFileSync(join(dir, "usine.yaml"), config({ apiUrl: sim.url, token, port, dir }))
      const usine = yield* startUsine(dir, ["up"])
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""

      const label = (number: number) =>
        Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number, labels: ["ready-for-agent"] }))
      /** The pull request each issue's Run opened, from the daemon's log. */
      const pullOf = (runId: string) =>
        eventually(
          `run ${runId} opens its pull request`,
          Effect.sync(() => Option.fromNullable([...usine.stdout().matchAll(PULL)].find((m) => m[2] === runId)?.[1])).pipe(
            Effect.map(Option.map(Number))
          ),
          90
        )
      const heldRunOf = (number: number) =>
        eventually(
          `issue #${number}'s Run is held by the WIP limit`,
          Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
            Option.fromNullable(view.brakes.held.find((h: HeldRun) => h.number === number && h.kind === "OpenPullRequests"))
          )
        )
      const runOf = (id: string) => board<RunView>(url, `/api/runs/${id}`)
      const openPulls = json<ReadonlyArray<{ number: number }>>(`${sim.url}/repos/${REPOSITORY}/pulls?state=open`, {
        headers: { authorization: `token ${token}` }
      })
      const status = Effect.gen(function* () {
        const run = yield* startUsine(dir, ["status"])
        assert.strictEqual(yield* run.exit("30 seconds"), 0, run.stderr())
        return run.stdout()
      })

      // A's Run starts at once and opens the Loop's one pull request.
      yield* label(a.number)
      const firstRun = (yield* usine.waitFor(/msg="run opened" run=([0-9a-f]{32})/))[1] ?? ""
      const pullA = yield* pullOf(firstRun)

      // B's Run is held: no Attempt, the reason on Needs you, for several poll cycles.
      yield* label(b.number)
      const heldB = yield* heldRunOf(b.number)
      assert.include(heldB.reason, `max_open_pull_requests: 1): ${REPOSITORY}#${pullA}`)
      yield* Effect.sleep("4 seconds")
      const stillHeld = yield* heldRunOf(b.number)
      assert.strictEqual(stillHeld.runId, heldB.runId)
      assert.deepStrictEqual((yield* runOf(heldB.runId)).attempts, [], "a held Run has no Attempt")
      assert.deepStrictEqual((yield* openPulls).map((p) => p.number), [pullA])

      // `usine status` shows today's usage against the caps, and the WIP hold.
      const printed = yield* status
      assert.match(printed, /^Usage today \(UTC \d{4}-\d{2}-\d{2}\):$/m)
      assert.match(printed, /^ {2}daemon {8}1,500 tokens \(\$0\.05\) {2}cap 100,000 tokens \(98,500 left\), \$5\.00 \(\$4\.95 left\)$/m)
      assert.match(printed, /^ {2}start-dev {5}1,500 tokens \(\$0\.05\) {2}cap 50,000 tokens \(48,500 left\)$/m)
      assert.match(printed, /^ {2}acme\/widgets {2}1,500 tokens \(\$0\.05\)$/m)
      assert.match(printed, /^Brakes: 1$/m)
      assert.match(printed, new RegExp(`^ {2}wip {6}start-dev acme/widgets#${b.number}: .*max_open_pull_requests: 1\\): acme/widgets#${pullA}$`, "m"))
      const usage = yield* board<UsageView>(url, "/api/usage")
      assert.deepStrictEqual(usage.repositories.map((r) => [r.name, r.usage.inputTokens + r.usage.outputTokens]), [["acme/widgets", 1500]])

      // A merge in the emulator frees the slot: polling sees it and B's Run starts and opens its own pull request.
      const mergedAt = yield* Clock.currentTimeMillis
      yield* Effect.promise(() => sim.control.mergePullRequest({ repo: REPOSITORY, number: pullA }))
      const pullB = yield* pullOf(heldB.runId)
      const afterMerge = (yield* Clock.currentTimeMillis) - mergedAt
      assert.notStrictEqual(pullB, pullA)
      // Well under the held Run's one-minute recheck: polling's wake frees the slot.
      assert.isBelow(afterMerge, 30_000, "B started within a few poll cycles of the merge")
      assert.strictEqual((yield* runOf(heldB.runId)).attempts.length, 1)

      // A pull request closed without a merge frees the slot too.
      yield* label(c.number)
      const heldC = yield* heldRunOf(c.number)
      assert.include(heldC.reason, `${REPOSITORY}#${pullB}`)
      const closedAt = yield* Clock.currentTimeMillis
      yield* Effect.promise(() => sim.control.closePullRequest({ repo: REPOSITORY, number: pullB }))
      const pullC = yield* pullOf(heldC.runId)
      const afterClose = (yield* Clock.currentTimeMillis) - closedAt
      assert.isBelow(afterClose, 30_000, "C started within a few poll cycles of the close")
      assert.deepStrictEqual((yield* openPulls).map((p) => p.number), [pullC])
      yield* Effect.logInfo(`WIP slot freed: ${afterMerge} ms after the merge, ${afterClose} ms after the close, each to a pull request`)

      const after = yield* status
      assert.match(after, /^ {2}daemon {8}4,500 tokens \(\$0\.15\) {2}cap 100,000 tokens \(95,500 left\)/m)
      assert.match(after, /^Brakes: none$/m)

      yield* usine.signal("SIGTERM")
      assert.strictEqual(yield* usine.exit("60 seconds"), 0, usine.stderr())
    }), 300_000)
})
