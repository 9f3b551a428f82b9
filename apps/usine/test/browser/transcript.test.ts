import AxeBuilder from "@axe-core/playwright"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { AGENT, BOARD_TOKEN, REPOSITORY } from "../support/daemonConfig"
import { board, eventually } from "../support/http"
import { BoardWorld, boardWorldWith, type WorldConfig } from "./support/BoardWorld"
import { CLAUDE_TASK_PROLOGUE } from "./support/claudeTaskPrologue"
import { chromiumMissing } from "./support/scopedBrowser"
import { markDocument, stillSameDocument } from "./support/sameDocument"
import { noProblems, scopedPage } from "./support/scopedPage"
import { screenshot } from "./support/screenshot"
import { step } from "./support/step"

const AGENT_FILE = "claude-tools.mjs"
const LABEL = "ready-for-agent"
const COMMAND = "node --test"

/**
 * A Claude-shaped agent that works the way real ones do: says what it will do in Markdown, waits a moment (the page
 * is open by then), runs the demo agent on the task (the real change and commit), then announces a Bash tool call,
 * runs `node --test` in the worktree for real and answers the call with its output, and waits again before its
 * closing `result`, so the page sees the call and its answer arrive live.
 */
const agentScript = () => `import { spawnSync } from "node:child_process"
${CLAUDE_TASK_PROLOGUE}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
emit({ type: "system", subtype: "init", session_id: "tools-" + Date.now(), model: "claude-demo" })
const say = (content) => emit({ type: "assistant", message: { model: "claude-demo", content } })
say([{ type: "text", text: "Reading **the issue** before touching \`slugify\`. <b>not bold</b>" }])
await sleep(4000)
const env = { ...process.env }
delete env.USINE_PROMPT_FILE
const agent = spawnSync(process.execPath, [${JSON.stringify(AGENT)}], { input: prompt, encoding: "utf8", env })
for (const text of (agent.stdout + agent.stderr).split("\\n").filter((l) => l.trim() !== "")) say([{ type: "text", text }])
say([{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: ${JSON.stringify(COMMAND)} } }])
const tests = spawnSync(process.execPath, ["--test"], { encoding: "utf8", env })
await sleep(700)
emit({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "toolu_1", content: tests.stdout + tests.stderr }] } })
await sleep(4000)
emit({ type: "result", subtype: agent.status === 0 ? "success" : "error_during_execution", is_error: agent.status !== 0, num_turns: 2, usage: { input_tokens: 10, output_tokens: 5 }, total_cost_usd: 0.001 })
process.exit(agent.status ?? 1)
`

const config: WorldConfig = (options) => `github:
  token: ${options.token}
  api_url: ${options.apiUrl}
repositories: [${REPOSITORY}]
poll_interval: 1s
ledger: state/ledger.db
labels:
  - {name: ${LABEL}, color: "0e8a16"}
board:
  listen: 127.0.0.1:${options.boardPort}
  token: ${BOARD_TOKEN}
agents:
  claude-tools:
    harness: claude
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(options.dir, AGENT_FILE))}]
workers:
  local:
    root: ${JSON.stringify(join(options.dir, "workspaces"))}
    max_concurrent_attempts: 1
    # The agent runs the demo agent from this checkout, which a sandbox would hide; the transcript is under test here.
    sandbox: none
loops:
  - name: fix-bugs
    on: issues
    if: '"${LABEL}" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: claude-tools
    approval: none
`

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly number: number }> }
}

const suite = chromiumMissing === undefined ? "a Run's transcript in Chromium against usine up" : `SKIPPED: ${chromiumMissing}`

describe.skipIf(chromiumMissing !== undefined && process.env["CI"] !== "true")(suite, () => {
  layer(boardWorldWith(config, { [AGENT_FILE]: agentScript() }), { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("the transcript shows a tool call as its command with its output folded, live as on a reload, axe-clean and phone-wide", () =>
      Effect.gen(function* () {
        const { browser, openIssue, url } = yield* BoardWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        const issue = yield* openIssue("slugify keeps punctuation", "Hello, World! gives hello,-world!", LABEL)
        const runId = yield* eventually(
          "the Run opens",
          Effect.map(board<RunsJson>(url, "/api/runs"), (runs) => Option.fromNullable(runs.page.runs.find((r) => r.number === issue.number)?.id))
        )
        yield* step(() => page.goto(`${url}runs/${runId}`))
        yield* markDocument(page)
        const transcript = page.locator('[data-testid="transcript"]')
        const call = transcript.locator('li[data-kind="tool_call"]', { has: page.locator('[data-testid="tool-command"]', { hasText: COMMAND }) })
        assert.strictEqual(yield* step(() => call.count()), 0, "the agent had not run its tests when the page opened")
        yield* step(() => transcript.locator("strong", { hasText: "the issue" }).waitFor({ timeout: 60_000 }))
        assert.strictEqual(yield* step(() => transcript.locator("b").count()), 0, "raw HTML in the agent's text is text")

        // The call arrives, then its answer joins it: the output folded under the command, with the call's duration.
        yield* step(() => call.waitFor({ timeout: 60_000 }))
        yield* step(() => call.and(page.locator(":not([data-pending])")).waitFor({ timeout: 30_000 }))
        yield* stillSameDocument(page)
        assert.strictEqual(yield* step(() => call.locator('[data-testid="tool-command"]').innerText()), COMMAND)
        assert.match(yield* step(() => call.locator('[data-testid="tool-duration"]').innerText()), /^\d+(\.\d)? m?s$/)
        const output = call.locator('li[data-kind="tool_result"] details.fold')
        assert.isNull(yield* step(() => output.getAttribute("open")), "the output is folded")
        assert.isFalse(yield* step(() => output.locator("pre").isVisible()))
        yield* step(() => output.locator("summary").click())
        assert.match(yield* step(() => output.locator("pre").innerText()), /# pass \d+/)

        // The row the stream built is the row the server renders for a reload.
        const seq = (yield* step(() => call.getAttribute("data-seq"))) ?? ""
        const live = yield* step(() => call.evaluate((el) => { el.querySelector("details.fold")?.removeAttribute("open"); return el.outerHTML }))
        const loaded = yield* step(() => page.evaluate<string>(`fetch(location.href, { headers: { Accept: "text/html" } })
          .then((res) => res.text())
          .then((html) => new DOMParser().parseFromString(html, "text/html").querySelector('li[data-seq="${seq}"]')?.outerHTML ?? "")`))
        assert.strictEqual(live, loaded)

        yield* step(() => page.locator('[data-testid="run-state"]', { hasText: "Succeeded" }).waitFor({ timeout: 60_000 })).pipe(
          Effect.tapErrorCause(() => Effect.flatMap(step(() => page.locator("main").innerText()), (t) => Effect.sync(() => console.log(`the Run page, which never showed Succeeded:\n${t}`))))
        )
        yield* step(() => page.locator('[data-testid="attempt-bar"]').first().waitFor())
        assert.strictEqual(yield* step(() => page.locator('[data-testid="attempt-bar"]').count()), 1)
        assert.include(yield* step(() => page.locator('[data-testid="attempt-strip-text"]').innerText()), "Attempt 1: succeeded")
        yield* noProblems(tab)

        const found: Array<string> = []
        for (const scheme of ["light", "dark"] as const) {
          yield* step(() => page.emulateMedia({ colorScheme: scheme }))
          for (const path of [`runs/${runId}`, "runs"]) {
            yield* step(() => page.goto(`${url}${path}`))
            yield* screenshot(page, `transcript-${scheme}-${path === "runs" ? "runs" : "run"}`)
            const result = yield* step(() => new AxeBuilder({ page }).analyze())
            for (const v of result.violations) {
              if (v.impact === "serious" || v.impact === "critical") found.push(`${scheme} /${path}: ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
            }
          }
        }
        assert.deepStrictEqual(found, [])
        yield* step(() => page.setViewportSize({ width: 390, height: 844 }))
        for (const path of [`runs/${runId}`, "runs"]) {
          yield* step(() => page.goto(`${url}${path}`))
          yield* screenshot(page, `transcript-phone-${path === "runs" ? "runs" : "run"}`)
          const wide = yield* step(() => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
          assert.strictEqual(wide, 0, `/${path} scrolls sideways at 390 px`)
        }
        yield* step(() => page.locator('[data-testid="runs-point"]').first().waitFor({ state: "attached" }))
      }), 150_000)
  })
})
