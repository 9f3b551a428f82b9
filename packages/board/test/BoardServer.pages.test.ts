import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { summarizeDiff } from "@usine/core/attempt/DiffSummary"
import { AgentFailure } from "@usine/core/attempt/failure"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { attrs, texts } from "./support/html"
import { REPOSITORY, runOf, SECRET, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

interface RunsJson {
  readonly page: { readonly runs: ReadonlyArray<{ id: string; state: string }>; readonly next?: string; readonly counts: Record<string, number> }
}

describe("Board pages and their JSON twins", () => {
  it.scoped("each page shows exactly what its /api twin returns", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard({
        settings: { pageSize: 3 },
        workers: [{
          name: "w1", slotsUsed: 1, slotsMax: 4, capabilities: ["codex"], lostCapabilities: ["claude"], health: "degraded",
          sandbox: "bubblewrap",
          confinement: { user: "uid 65534 (the daemon is root there: setpriv switches to it)", limits: "rlimits by prlimit (this host has cgroup v1 only): memory 4 GiB a process" }
        }],
        pollFailures: [{ at: 5, repository: REPOSITORY, loop: "gated", item: 9, message: "prompt failed to render" }],
        rateQuotas: [{ resource: "core", limit: 5000, remaining: 12 }, { resource: "graphql", limit: 5000, remaining: 4000 }]
      })
      const browser = client()
      const gated = submission({ number: 1, loop: "gated" })
      const failing = submission({ number: 2 })
      const done = submission({ number: 3 })
      const running = submission({ number: 4 })
      memory.script(runOf(failing), Script.fail(new AgentFailure({ reason: "verification kept failing", evidence: "3 tests red" })))
      memory.script(runOf(running), Script.hang)
      for (const s of [gated, failing, done, running]) yield* engine.submit(s)
      yield* untilState(store, runOf(gated), "Waiting")
      yield* untilState(store, runOf(failing), "Failed")
      yield* untilState(store, runOf(done), "Succeeded")
      yield* untilState(store, runOf(running), "Running")

      const needsHtml = (yield* promise(() => browser.get("/"))).body
      const needs = JSON.parse((yield* promise(() => browser.get("/api/needs-you"))).body)
      assert.deepStrictEqual(attrs(needsHtml, "waiting-run", "data-run-id"), needs.waiting.map((w: any) => w.run.id))
      assert.deepStrictEqual(attrs(needsHtml, "waiting-run", "data-run-id"), [runOf(gated)])
      assert.deepStrictEqual(attrs(needsHtml, "failed-run", "data-run-id"), needs.failed.map((f: any) => f.run.id))
      assert.deepStrictEqual(texts(needsHtml, "failure-reason"), needs.failed.map((f: any) => f.failure.reason))
      assert.deepStrictEqual(texts(needsHtml, "failure-reason"), ["verification kept failing"])
      assert.deepStrictEqual(attrs(needsHtml, "worker-alert", "data-worker"), ["w1"])
      assert.deepStrictEqual(attrs(needsHtml, "rate-quota", "data-resource"), needs.lowRateQuotas.map((q: any) => q.resource))
      assert.deepStrictEqual(needs.lowRateQuotas.map((q: any) => q.resource), ["core"])
      assert.strictEqual(attrs(needsHtml, "poll-failure", "data-testid").length, 1)
      assert.include(needsHtml, `data-testid="approve-${runOf(gated)}"`)

      const runsHtml = (yield* promise(() => browser.get("/runs"))).body
      const runs = JSON.parse((yield* promise(() => browser.get("/api/runs"))).body) as RunsJson
      assert.deepStrictEqual(attrs(runsHtml, "run-row", "data-run-id"), runs.page.runs.map((r) => r.id))
      assert.deepStrictEqual(attrs(runsHtml, "run-row", "data-state"), runs.page.runs.map((r) => r.state))
      assert.deepStrictEqual(runs.page.runs.map((r) => r.id), [runOf(running), runOf(done), runOf(failing)], "newest first, 3 a page")
      for (const [state, count] of Object.entries(runs.page.counts)) {
        assert.deepStrictEqual(texts(runsHtml, `count-${state}`), [String(count)], state)
      }
      assert.deepStrictEqual([runs.page.counts.Waiting, runs.page.counts.Failed, runs.page.counts.Running], [1, 1, 1])
      const older = attrs(runsHtml, "next-page", "href")[0] ?? ""
      const secondHtml = (yield* promise(() => browser.get(older))).body
      assert.deepStrictEqual(attrs(secondHtml, "run-row", "data-run-id"), [runOf(gated)])
      const failedOnly = JSON.parse((yield* promise(() => browser.get("/api/runs?state=Failed&item=acme/app%232"))).body) as RunsJson
      assert.deepStrictEqual(failedOnly.page.runs.map((r) => r.id), [runOf(failing)])
      const badFilter = yield* promise(() => browser.get("/api/runs?state=Lost"))
      assert.deepStrictEqual([badFilter.status, JSON.parse(badFilter.body).field], [400, "state"])
      assert.match(JSON.parse(badFilter.body).message, /^state: expected one of "Pending", .*"Canceled", got "Lost"$/)

      const runHtml = (yield* promise(() => browser.get(`/runs/${runOf(failing)}`))).body
      const run = JSON.parse((yield* promise(() => browser.get(`/api/runs/${runOf(failing)}`))).body)
      assert.deepStrictEqual(texts(runHtml, "run-state"), [run.run.state])
      assert.deepStrictEqual(attrs(runHtml, "actions", "data-actions"), [run.actions.join(" ")])
      assert.deepStrictEqual(run.actions, ["retry", "editAndRetry", "resolveFailure"])
      assert.deepStrictEqual(attrs(runHtml, "attempt", "data-outcome"), run.attempts.map((a: any) => a.outcome))
      assert.deepStrictEqual(attrs(runHtml, "transcript-row", "data-seq"), run.transcript.lines.map((l: any) => String(l.seq)))
      assert.deepStrictEqual(texts(runHtml, "timeline-what"), run.timeline.map((t: any) => t.what))
      assert.includeMembers(run.timeline.map((t: any) => t.what), ["opened Pending", "Pending → Running", "Running → Failed"])
      assert.include(runHtml, 'data-testid="action-retry"')
      assert.notInclude(runHtml, 'data-testid="action-approve"', "only legal actions are offered")

      const workersHtml = (yield* promise(() => browser.get("/workers"))).body
      const workers = JSON.parse((yield* promise(() => browser.get("/api/workers"))).body)
      assert.deepStrictEqual(texts(workersHtml, "worker-slots"), workers.workers.map((w: any) => `${w.slotsUsed}/${w.slotsMax}`))
      assert.deepStrictEqual(texts(workersHtml, "worker-limits"), workers.workers.map((w: any) => w.confinement.limits))
      assert.include(texts(workersHtml, "worker-sandbox")[0], "as uid 65534 (the daemon is root there")
      const loopsHtml = (yield* promise(() => browser.get("/loops"))).body
      const loops = JSON.parse((yield* promise(() => browser.get("/api/loops"))).body)
      assert.deepStrictEqual(attrs(loopsHtml, "loop", "data-loop"), loops.loops.map((l: any) => l.name))
      assert.deepStrictEqual(texts(loopsHtml, "loop-count-Failed"), loops.loops.map((l: any) => String(l.counts.Failed)))
      const missing = yield* promise(() => browser.get(`/runs/${"0".repeat(32)}`))
      assert.strictEqual(missing.status, 404)
    }))

  it.scoped("the Run page shows what the Attempt changed, its files folded, as the JSON twin carries it", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const done = submission({ number: 3 })
      const failing = submission({ number: 2 })
      const diff = summarizeDiff([
        { path: "src/slug.ts", insertions: 118, deletions: 14, binary: false },
        { path: "docs/new\nname.md", oldPath: "docs/old name.md", insertions: 2, deletions: 0, binary: false },
        { path: "logo.png", insertions: 0, deletions: 0, binary: true }
      ], 2)
      memory.script(runOf(done), Script.succeed(undefined, { result: { commits: ["c1", "c2"], branch: "usine/build/3-x", diff } }))
      memory.script(runOf(failing), Script.fail(new AgentFailure({ reason: "no", evidence: "" })))
      for (const s of [done, failing]) yield* engine.submit(s)
      yield* untilState(store, runOf(done), "Succeeded")
      yield* untilState(store, runOf(failing), "Failed")

      const html = (yield* promise(() => browser.get(`/runs/${runOf(done)}`))).body
      const json = JSON.parse((yield* promise(() => browser.get(`/api/runs/${runOf(done)}`))).body)
      assert.deepStrictEqual(json.result.diff, diff)
      assert.deepStrictEqual(json.attempts.map((a: any) => a.diff), [diff])
      assert.deepStrictEqual(texts(html, "diff-figures"), ["3 files changed, +120 −14, 1 binary"])
      assert.deepStrictEqual(texts(html, "attempt-diff"), [" · 3 files changed, +120 −14, 1 binary"])
      assert.deepStrictEqual(attrs(html, "diff-file", "data-path"), json.result.diff.files.map((f: any) => f.path))
      assert.deepStrictEqual(texts(html, "diff-path"), ["src/slug.ts", "docs/old name.md → docs/new\\nname.md"])
      assert.deepStrictEqual(texts(html, "diff-omitted"), ["and 1 more file"])
      assert.match(html, /<details class="diffstat" data-testid="diff"><summary data-testid="diff-figures">/, "the files fold under the figures")

      const failedHtml = (yield* promise(() => browser.get(`/runs/${runOf(failing)}`))).body
      const failedJson = JSON.parse((yield* promise(() => browser.get(`/api/runs/${runOf(failing)}`))).body)
      assert.deepStrictEqual([texts(failedHtml, "diff-figures"), texts(failedHtml, "attempt-diff")], [[], []])
      assert.notProperty(failedJson.attempts[0], "diff")
    }))

  it.scoped("an Edit and retry shows on the timeline: what changed, the earlier task whole, redacted, on page and twin", () =>
    Effect.gen(function* () {
      const { client, engine, memory, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 8 })
      memory.script(runOf(run), Script.fail(new AgentFailure({ reason: "no", evidence: "" })), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Failed")
      const task = `Fix the slug.\n${"Keep the tests green.\n".repeat(40)}Token: ${SECRET}\n<script>alert(1)</script>`
      const edited = yield* promise(() => browser.act(`/runs/${runOf(run)}/edit-and-retry`, { task, model: "gpt-5" }))
      assert.strictEqual(edited.status, 200)
      yield* untilState(store, runOf(run), "Running")

      const html = (yield* promise(() => browser.get(`/runs/${runOf(run)}`))).body
      const json = JSON.parse((yield* promise(() => browser.get(`/api/runs/${runOf(run)}`))).body)
      assert.notInclude(html + JSON.stringify(json), SECRET, "the note passes the redactor like everything else")
      assert.notInclude(html, "<script>alert(1)</script>")
      assert.deepStrictEqual(texts(html, "timeline-what"), json.timeline.map((t: any) => t.what))
      assert.deepStrictEqual(attrs(html, "timeline-entry", "data-note"), json.timeline.map((t: any) => t.note ?? ""))
      const at = json.timeline.findIndex((t: any) => t.note === "Edited")
      assert.deepStrictEqual(
        json.timeline.slice(at - 1, at + 1).map((t: any) => [t.actor, t.what]),
        [["operator", "Failed → Running"], ["operator", "edited: task, model"]],
        "the edit follows the retry it explains"
      )
      const edit = json.timeline[at].edit
      assert.deepStrictEqual(edit.fields, [{ field: "model", before: "(CLI's own)", after: "gpt-5" }])
      assert.strictEqual(edit.task.before, "work on #8", "what the earlier Attempt was told, kept")
      assert.include(edit.task.after, "Keep the tests green.")
      assert.isTrue(edit.task.truncated)
      assert.deepStrictEqual(texts(html, "edit-model"), ["model: (CLI's own) → gpt-5"])
      assert.deepStrictEqual(texts(html, "edit-task-before"), ["work on #8"])
      assert.deepStrictEqual(texts(html, "edit-task-after"), [edit.task.after])
      assert.match(html, /<details><summary>Whole tasks, before and after<\/summary>/, "the whole texts fold")
    }))
})
