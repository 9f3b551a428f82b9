import { assert, describe, it } from "@effect/vitest"
import { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure } from "@usine/core/attempt/failure"
import { summarizeDiff } from "@usine/core/attempt/DiffSummary"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { EventId } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Canceled, Failed, OperatorCanceled, Pending, Queued, Running, Succeeded, Waiting } from "@usine/core/run/state"
import { Transition } from "@usine/core/run/Transition"
import { allowedHosts } from "@usine/board/BoardServer/allowedHosts"
import { boardView } from "@usine/board/BoardViews/boardView"
import { legalActions } from "@usine/board/BoardViews/legalActions"
import { loopsView } from "@usine/board/BoardViews/loopsView"
import { REFUSED_SHOWN, refusedTriggersView } from "@usine/board/BoardViews/needsYouView"
import { redactDeep } from "@usine/board/BoardViews/redactDeep"
import { runView } from "@usine/board/BoardViews/runView"
import { TASK_LINE_CHARS, TASK_LINES_SHOWN, taskChange } from "@usine/board/BoardViews/editView"
import { timeline } from "@usine/board/BoardViews/timeline"
import type { RunNote, RunNoteBody } from "@usine/store/RunNote"

const runId = RunId("a".repeat(32))
const attempt = (number: number, patch: Partial<ConstructorParameters<typeof Attempt>[0]> = {}) =>
  new Attempt({ id: AttemptId(`${runId}/main/${number}`), runId, step: "main", number, startedAt: 10, ...patch })

describe("Board views", () => {
  it("offers exactly the actions the engine accepts in each state", () => {
    const open = attempt(1)
    const failed = attempt(1, { endedAt: 11, outcome: new AttemptFailed({ failure: new AgentFailure({ reason: "x", evidence: "" }) }) })
    assert.deepStrictEqual(legalActions({ state: new Pending() }, undefined), ["cancel"])
    assert.deepStrictEqual(legalActions({ state: new Waiting() }, undefined), ["approve", "cancel"])
    assert.deepStrictEqual(legalActions({ state: new Queued() }, undefined), ["cancel"])
    assert.deepStrictEqual(legalActions({ state: new Running() }, open), ["intervene", "cancel"])
    assert.deepStrictEqual(legalActions({ state: new Running() }, failed), ["cancel"], "between auto-retried Attempts")
    assert.deepStrictEqual(legalActions({ state: new Failed() }, failed), ["retry", "editAndRetry", "resolveFailure"])
    assert.deepStrictEqual(legalActions({ state: new Failed(), resolvedFailureAttemptId: failed.id }, failed), ["retry", "editAndRetry"])
    assert.deepStrictEqual(legalActions({ state: new Succeeded() }, undefined), [])
    assert.deepStrictEqual(legalActions({ state: new Canceled({ reason: new OperatorCanceled() }) }, undefined), [])
  })

  it("merges transitions and Attempts into one history; within a millisecond the Attempt sits inside its states", () => {
    const t = (seq: number, from: string | undefined, to: string, actor: "engine" | "operator" | "trigger", at: number) =>
      new Transition({ seq, runId, ...(from === undefined ? {} : { from }), to, actor, reason: `r${seq}`, at })
    const entries = timeline(
      [t(1, undefined, "Pending", "trigger", 5), t(2, "Pending", "Running", "engine", 10), t(3, "Running", "Succeeded", "engine", 20)],
      [attempt(1, { endedAt: 20, worker: "w1", outcome: new AttemptSucceeded({ result: { commits: [], pullRequestUrl: "https://x/pr/1" } }) })]
    )
    assert.deepStrictEqual(entries.map((e) => `${e.at} ${e.actor}: ${e.what}`), [
      "5 trigger: opened Pending",
      "10 engine: Pending → Running",
      "10 engine: Attempt 1 started on w1",
      "20 executor: Attempt 1 succeeded",
      "20 engine: Running → Succeeded"
    ])
    assert.strictEqual(entries[3]?.why, "https://x/pr/1")
  })

  it("places each note after the transition it was written after, and shows holds, releases and edits", () => {
    const t = (seq: number, from: string | undefined, to: string, actor: "engine" | "operator" | "trigger", at: number) =>
      new Transition({ seq, runId, ...(from === undefined ? {} : { from }), to, actor, reason: `r${seq}`, at })
    const note = (id: number, afterSeq: number, at: number, body: RunNoteBody, actor: "engine" | "operator" = "engine"): RunNote =>
      ({ id, runId, actor, at, afterSeq, summary: "", body })
    const failed = new AttemptFailed({ failure: new AgentFailure({ reason: "x", evidence: "" }) })
    // Everything in one millisecond but the Attempt's end: only the notes' places keep the story in order.
    const entries = timeline(
      [t(1, undefined, "Pending", "trigger", 5), t(2, "Pending", "Running", "engine", 5), t(3, "Running", "Failed", "engine", 9),
        t(4, "Failed", "Running", "operator", 9)],
      [attempt(1, { startedAt: 5, endedAt: 9, outcome: failed })],
      [
        note(3, 4, 9, { _tag: "Edited", before: { task: "a\nb\nc", agent: "codex" }, after: { task: "a\nB\nc", agent: "codex", model: "m2" } }, "operator"),
        note(1, 1, 5, { _tag: "Held", holdKind: "DailyCap", reason: "the daemon used 1,200 tokens", until: 86_400_000 }),
        note(2, 1, 5, { _tag: "Released", holdKind: "DailyCap", reason: "the daemon used 1,200 tokens", heldMs: 22_320_000, why: "a new UTC day began" })
      ]
    )
    assert.deepStrictEqual(entries.map((e) => `${e.at} ${e.actor}: ${e.what}${e.why === "" ? "" : ` — ${e.why}`}`), [
      "5 trigger: opened Pending — r1",
      "5 engine: held by a daily cap — the daemon used 1,200 tokens",
      "5 engine: released after 6h 12m — a new UTC day began",
      "5 engine: Pending → Running — r2",
      "5 engine: Attempt 1 started",
      `9 executor: Attempt 1 failed — ${failed.failure.message}`,
      "9 engine: Running → Failed — r3",
      "9 operator: Failed → Running — r4",
      "9 operator: edited: task, model"
    ])
    assert.deepStrictEqual(entries.map((e) => e.note), [undefined, "Held", "Released", undefined, undefined, undefined, undefined, undefined, "Edited"])
    const edit = entries.at(-1)?.edit
    assert.deepStrictEqual(edit?.fields, [{ field: "model", before: "(CLI's own)", after: "m2" }])
    assert.deepStrictEqual(edit?.task?.lines, [{ sign: " ", text: "a" }, { sign: "-", text: "b" }, { sign: "+", text: "B" }, { sign: " ", text: "c" }])
    assert.deepStrictEqual([edit?.task?.before, edit?.task?.after, edit?.task?.truncated], ["a\nb\nc", "a\nB\nc", false])
  })

  it("folds a long task change: a few changed lines, each cut short, the whole texts kept beside", () => {
    const before = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n")
    const after = `${"x".repeat(1_000)}\n${before.split("\n").slice(1).map((l) => `${l}!`).join("\n")}`
    const change = taskChange(before, after)
    assert.strictEqual(change.lines.length, TASK_LINES_SHOWN)
    assert.isTrue(change.truncated)
    assert.deepStrictEqual(change.lines.slice(0, 2).map((l) => l.sign), ["-", "-"], "no common first line, so no context")
    assert.isTrue(change.lines.every((l) => l.text.length <= TASK_LINE_CHARS + 1))
    assert.deepStrictEqual([change.before, change.after], [before, after])
    assert.deepStrictEqual(taskChange("same\nend", "same\nnew end").lines, [{ sign: " ", text: "same" }, { sign: "-", text: "end" }, { sign: "+", text: "new end" }])
  })

  it("gives each succeeded Attempt and the Run's result the diff summary its outcome carries, and none to the others", () => {
    const diff = summarizeDiff([
      { path: "src/a.ts", insertions: 120, deletions: 14, binary: false },
      { path: "logo.png", insertions: 0, deletions: 0, binary: true }
    ])
    const run = new Run({
      id: runId, eventId: EventId("e1"), loop: "build", itemKey: itemKeyOf("a/b", 1), repository: "a/b", number: 1, generation: 0,
      state: new Succeeded(), version: 5, task: "t", agent: "codex", approvalRequired: false, receivedAt: 1, createdAt: 1, updatedAt: 30
    })
    const attempts = [
      attempt(1, { endedAt: 11, outcome: new AttemptFailed({ failure: new AgentFailure({ reason: "x", evidence: "" }) }) }),
      attempt(2, { endedAt: 12, outcome: new AttemptSucceeded({ result: { commits: ["c1"], summary: "stored before diffs" } }) }),
      attempt(3, { endedAt: 20, outcome: new AttemptSucceeded({ result: { commits: ["c1", "c2"], diff } }) })
    ]
    const view = runView({ run, attempts, transitions: [], notes: [], usageByAttempt: [] }, attempts[2], [])
    assert.deepStrictEqual(view.attempts.map((a) => a.diff), [undefined, undefined, diff])
    assert.deepStrictEqual(view.attempts.map((a) => "diff" in a), [false, false, true], "no key at all in the JSON twin")
    assert.deepStrictEqual(view.result?.diff, diff)
    assert.deepStrictEqual([diff.filesChanged, diff.insertions, diff.deletions, diff.binaryFiles], [2, 120, 14, 1])
  })

  it("puts each open Item in the first column whose label it carries", () => {
    const item = (number: number, labels: ReadonlyArray<string>, state = "open") => ({
      itemKey: `k${number}` as never, repository: "a/b", number, kind: "issue" as const, title: "", state, url: "", labels,
      observedAt: 0, openRuns: []
    })
    const view = boardView(
      [{ name: "Ready", label: "ready" }, { name: "Review", label: "review" }],
      [item(1, ["ready"]), item(2, ["review", "ready"]), item(3, ["bug"]), item(4, ["review"], "closed")]
    )
    assert.deepStrictEqual(view.columns.map((c) => [c.name, c.cards.map((card) => card.number)]), [["Ready", [1, 2]], ["Review", []]])
  })

  it("gives a card's pull request the CI counts polling stored with that pull request, and none it did not poll", () => {
    const checks = { total: 3, passed: 1, failed: 1, pending: 1 }
    const issue = (number: number, pullRequest: number) => ({
      itemKey: `k${number}` as never, repository: "A/b", number, kind: "issue" as const, title: "", state: "open", url: "",
      labels: ["ready"], observedAt: 0, openRuns: [],
      latestRun: { id: `r${number}`, loop: "fix", state: "Succeeded", since: 0, pullRequest: { url: `https://github.test/a/b/pull/${pullRequest}`, number: pullRequest } }
    })
    const pull = { itemKey: "p9" as never, repository: "a/b", number: 9, kind: "pull_request" as const, title: "", state: "open", url: "", labels: [], observedAt: 0, openRuns: [], checks }
    const view = boardView([{ name: "Ready", label: "ready" }], [issue(1, 9), issue(2, 10), pull])
    const cards = view.columns[0]?.cards ?? []
    assert.deepStrictEqual(cards.map((c) => [c.number, c.latestRun?.pullRequest?.checks]), [[1, checks], [2, undefined]])
    assert.isFalse("checks" in (cards[1]?.latestRun?.pullRequest ?? {}), "no key at all in the JSON twin")
  })

  it("lists at most REFUSED_SHOWN refused triggers and counts the rest from every Loop's total", () => {
    const refusal = (number: number) => ({
      eventId: EventId(`trust-refused:e${number}`), loop: "build", itemKey: itemKeyOf("a/b", number), repository: "a/b", number,
      reason: `label added by mallory-${number}`, at: number
    })
    const many = Array.from({ length: REFUSED_SHOWN + 1 }, (_, i) => refusal(100 - i))
    const capped = refusedTriggersView(many, new Map([["build", 30], ["gated", 4]]))
    assert.deepStrictEqual(capped.recent.map((r) => r.number), many.slice(0, REFUSED_SHOWN).map((r) => r.number))
    assert.strictEqual(capped.more, 34 - REFUSED_SHOWN)
    assert.deepStrictEqual(refusedTriggersView([refusal(1)], new Map([["build", 1]])), { recent: [refusal(1)], more: 0 })
    assert.deepStrictEqual(refusedTriggersView([], new Map()), { recent: [], more: 0 })
    const loops = loopsView(
      [{ name: "build", on: "issues", if: "true", repositories: ["a/b"], agent: "codex", approval: "none" }],
      { loops: [], asks: [] },
      undefined,
      new Map([["build", 3], ["gone", 2]])
    )
    assert.deepStrictEqual(loops.loops.map((l) => [l.name, l.refused]), [["build", 3]], "counted per configured or active Loop")
  })

  it("redacts every string at any depth and keeps everything else", () => {
    const value = { a: "x-secret", b: [1, { c: "secret!" }], d: true, e: null }
    assert.deepStrictEqual(redactDeep((s) => s.replace("secret", "***"), value), { a: "x-***", b: [1, { c: "***!" }], d: true, e: null })
  })

  it("answers the listen address, loopback names only on loopback, and the configured public names", () => {
    assert.deepStrictEqual([...allowedHosts({ listen: { host: "127.0.0.1", port: 80 }, hostNames: [] }, 8787)].sort(), [
      "127.0.0.1:8787", "[::1]:8787", "localhost:8787"
    ])
    assert.deepStrictEqual([...allowedHosts({ listen: { host: "0.0.0.0", port: 0 }, hostNames: ["Usine.Example.com"] }, 9000)].sort(), [
      "0.0.0.0:9000", "usine.example.com", "usine.example.com:9000"
    ])
  })
})
