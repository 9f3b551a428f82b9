import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { BOARD_TOKEN, loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { type PromFamily, parsePrometheus } from "./support/parsePrometheus"
import { upIn, upWorld } from "./support/upWorld"
import { CLAUDE_AGENT_FILE, claudeAgentScript, TASK_USAGE } from "./browser/support/showcaseConfig"

const scrape = (url: string, headers: Record<string, string> = { authorization: `Bearer ${BOARD_TOKEN}` }) =>
  Effect.promise(() =>
    fetch(`${url}metrics`, { headers }).then(async (r) => ({ status: r.status, type: r.headers.get("content-type"), text: await r.text() }))
  )

const family = (families: ReadonlyArray<PromFamily>, name: string) => families.find((f) => f.name === name)

/** The value of the sample of `name` whose labels include `labels`; 0 when there is none. */
const valueOf = (families: ReadonlyArray<PromFamily>, name: string, labels: Record<string, string>) => {
  const sample = family(families, name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return Number(sample?.value ?? sample?.count ?? 0)
}

/** Every counter sample (and histogram count) of a scrape, keyed by name and labels. */
const counters = (families: ReadonlyArray<PromFamily>): ReadonlyMap<string, number> =>
  new Map(
    families
      .filter((f) => f.type === "COUNTER" || f.type === "HISTOGRAM")
      .flatMap((f) => f.metrics.map((m) => [`${f.name}${JSON.stringify(m.labels ?? {})}`, Number(m.value ?? m.count)] as const))
  )

describe("usine up: /metrics", () => {
  it.scopedLive("a scrape during a Run: its state moves across the gauge, counters only grow, no secret shows, 401 without the token", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim, token } = world
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))
      const { usine, url } = yield* upIn(world, { loops: [loop("gated", "ready-for-agent", "required")], agentDelay: 4 })
      const scrapes: Array<ReadonlyArray<PromFamily>> = []
      const take = Effect.gen(function* () {
        const answer = yield* scrape(url)
        assert.strictEqual(answer.status, 200)
        assert.include(answer.type ?? "", "text/plain")
        for (const secret of [token, BOARD_TOKEN]) assert.notInclude(answer.text, secret, "no secret in the metrics")
        const parsed = parsePrometheus(answer.text)
        scrapes.push(parsed)
        return parsed
      })
      const state = (families: ReadonlyArray<PromFamily>, s: string) => valueOf(families, "usine_runs", { loop: "gated", state: s })

      assert.strictEqual((yield* scrape(url, {})).status, 401, "no token")
      assert.strictEqual((yield* scrape(url, { accept: "text/plain" })).status, 401, "no login redirect")
      assert.strictEqual((yield* scrape(url, { authorization: "Bearer wrong" })).status, 401, "a wrong token")

      const first = yield* take
      for (const name of ["usine_runs", "usine_attempts_total", "usine_attempt_duration_seconds", "usine_queue_wait_seconds",
        "usine_tokens_total", "usine_cost_usd_total", "usine_github_requests_total", "usine_github_rate_remaining",
        "usine_poll_cycle_duration_seconds", "usine_poll_failures_total", "usine_runs_held", "usine_agent_quota_holds",
        "usine_worker_up", "usine_worker_slots_used", "usine_worker_slots", "usine_ledger_write_duration_seconds"]) {
        assert.isDefined(family(first, name), name)
      }
      assert.strictEqual(valueOf(first, "usine_worker_up", { worker: "local" }), 1)
      // Before any Run exists every known series is there at 0: each state of the configured Loop, each outcome, its
      // Agent's spend, each brake (Prometheus' advice for label values known in advance).
      const sampled = (name: string, labels: Record<string, string>) =>
        family(first, name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
      for (const s of ["Pending", "Waiting", "Queued", "Running", "Reviewing", "Succeeded", "Failed", "Canceled"]) {
        assert.strictEqual(sampled("usine_runs", { loop: "gated", state: s })?.value, "0", `usine_runs{state="${s}"} is 0`)
      }
      for (const outcome of ["Succeeded", "Failed", "Canceled"]) {
        assert.strictEqual(sampled("usine_attempts_total", { loop: "gated", outcome })?.value, "0", `usine_attempts_total{outcome="${outcome}"} is 0`)
      }
      for (const kind of ["AgentQuota", "DailyCap", "NoProgress", "OpenPullRequests", "RetryBackoff"]) {
        assert.strictEqual(sampled("usine_runs_held", { kind })?.value, "0", `usine_runs_held{kind="${kind}"} is 0`)
      }
      assert.strictEqual(sampled("usine_tokens_total", { loop: "gated", agent: "demo", kind: "input" })?.value, "0")
      assert.strictEqual(sampled("usine_cost_usd_total", { loop: "gated", agent: "demo" })?.value, "0")

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0]))
      )
      const parked = yield* take
      assert.strictEqual(state(parked, "Waiting"), 1)
      yield* board(url, `/runs/${waiting.run.id}/approve`, "POST")
      yield* usine.waitFor(/msg="attempt 1 started on local"/)
      const running = yield* take
      assert.strictEqual(state(running, "Running"), 1)
      assert.strictEqual(state(running, "Waiting"), 0)
      assert.strictEqual(valueOf(running, "usine_worker_slots_used", { worker: "local" }), 1)
      yield* usine.waitFor(/msg="attempt 1 succeeded/, "90 seconds")
      const done = yield* eventually("the gauge shows the Run succeeded", Effect.map(take, (s) => Option.liftPredicate(s, (f) => state(f, "Succeeded") === 1)))
      assert.strictEqual(state(done, "Running"), 0)
      assert.strictEqual(valueOf(done, "usine_attempts_total", { loop: "gated", outcome: "Succeeded" }), 1)
      assert.strictEqual(valueOf(done, "usine_attempt_duration_seconds", {}), 1, "one Attempt observed")
      assert.isAtLeast(valueOf(done, "usine_queue_wait_seconds", {}), 1, "its wait in Queued observed")
      assert.strictEqual(valueOf(done, "usine_worker_slots_used", { worker: "local" }), 0)
      assert.isAbove(valueOf(done, "usine_github_requests_total", { status: "200" }), 0)
      assert.isAbove(valueOf(done, "usine_github_rate_remaining", { resource: "core" }), 0)
      assert.isAbove(valueOf(done, "usine_poll_cycle_duration_seconds", {}), 0, "poll cycles observed")
      // The Run's claim, approval, Attempt start and end are ledger transactions, each timed at the store.
      const writes = valueOf(done, "usine_ledger_write_duration_seconds", {})
      assert.isAtLeast(writes - valueOf(first, "usine_ledger_write_duration_seconds", {}), 4, "the Run's ledger writes observed")
      assert.strictEqual(family(done, "usine_ledger_write_duration_seconds")?.type, "HISTOGRAM")

      for (let i = 1; i < scrapes.length; i++) {
        const before = counters(scrapes[i - 1]!)
        const after = counters(scrapes[i]!)
        for (const [key, value] of before) assert.isAtLeast(after.get(key) ?? 0, value, `${key} went down`)
      }
      assert.notInclude(usine.stdout(), token)
    }), 180_000)

  it.scopedLive("spend and poll failures count what happened: an Agent's reported tokens and cost exactly; failed polls while GitHub fails, none once it answers, and Needs you follows", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim } = world
      writeFileSync(join(dir, CLAUDE_AGENT_FILE), claudeAgentScript())
      yield* Effect.promise(() => sim.control.createIssue({
        repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!", labels: ["ready-for-agent"]
      }))
      const { usine, url } = yield* upIn(world, {
        loops: [loop("spend", "ready-for-agent", "none").replace("agent: demo", "agent: claude-demo")],
        edit: (yaml) => yaml.replace("agents:\n", `agents:\n  claude-demo:\n    harness: claude\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(dir, CLAUDE_AGENT_FILE))}]\n`)
      })
      yield* usine.waitFor(/msg="attempt 1 succeeded/, "90 seconds")
      const spent = yield* eventually("the Attempt's usage is scraped", Effect.map(scrape(url), (answer) =>
        Option.liftPredicate(parsePrometheus(answer.text), (f) => valueOf(f, "usine_cost_usd_total", { loop: "spend" }) > 0)))
      const usage = TASK_USAGE.punctuation
      const tokens = (kind: string) => valueOf(spent, "usine_tokens_total", { loop: "spend", agent: "claude-demo", kind })
      assert.deepStrictEqual(
        [tokens("input"), tokens("output"), tokens("cached_input")],
        [usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens, usage.output_tokens, usage.cache_read_input_tokens],
        "the tokens the agent's result reported, by kind (input counts cached input too, as Codex reports it)"
      )
      assert.closeTo(valueOf(spent, "usine_cost_usd_total", { loop: "spend", agent: "claude-demo" }), usage.total_cost_usd, 1e-9)

      // GitHub fails the issue listing for a while: each cycle in that while is one failed poll of the repository.
      const failuresOf = (f: ReadonlyArray<PromFamily>) => valueOf(f, "usine_poll_failures_total", { repository: REPOSITORY })
      const cyclesOf = (f: ReadonlyArray<PromFamily>) => valueOf(f, "usine_poll_cycle_duration_seconds", {})
      assert.strictEqual(failuresOf(spent), 0, "no poll failed yet")
      yield* Effect.promise(() => sim.control.setFault({ method: "GET", path: `/repos/${REPOSITORY}/issues`, status: 404 }))
      const failing = yield* eventually("three polls failed", Effect.map(scrape(url), (answer) =>
        Option.liftPredicate(parsePrometheus(answer.text), (f) => failuresOf(f) >= 3)), 60)
      const shown = yield* board<NeedsYouView>(url, "/api/needs-you")
      assert.isTrue(shown.pollFailures.some((f) => f.repository === REPOSITORY && f.message.startsWith("poll failed")), "the failing poll is on Needs you")
      yield* Effect.promise(() => sim.control.clearFaults())
      const healed = yield* eventually("a poll cycle after the fault", Effect.map(scrape(url), (answer) =>
        Option.liftPredicate(parsePrometheus(answer.text), (f) => cyclesOf(f) >= cyclesOf(failing) + 2)), 60)
      assert.isAtMost(failuresOf(healed) - failuresOf(failing), 1, "failures stop once GitHub answers (one cycle may have been under way)")
      const needsYou = yield* board<NeedsYouView>(url, "/api/needs-you")
      assert.isFalse(needsYou.pollFailures.some((f) => f.repository === REPOSITORY), "the poll failure clears from Needs you once a poll succeeds")
    }), 180_000)
})
