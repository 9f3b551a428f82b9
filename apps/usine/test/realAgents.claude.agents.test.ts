import { fileURLToPath } from "node:url"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer, Option } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { demoModelScripts } from "../src/demo/demoModelScripts"
import { REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { processesUnder } from "./realAgents/processesUnder"
import { pushedBranch } from "./realAgents/pushedBranch"
import { MODEL_KEY, type RealAgentWorld, realAgentWorld } from "./realAgents/RealAgentWorld"

/** The real Claude Code CLI (`@anthropic-ai/claude-code`, a dev dependency): its launcher is the native binary. */
const CLAUDE = fileURLToPath(new URL("../node_modules/.bin/claude", import.meta.url))
const ALWAYS = Number.POSITIVE_INFINITY
// LoopConfig's stall limit; the silent-model scenario costs that much real time.
const STALL_MINUTES = 0.5

class ClaudeWorld extends Context.Tag("test/ClaudeWorld")<ClaudeWorld, RealAgentWorld>() {}

const world = Layer.scoped(
  ClaudeWorld,
  realAgentWorld({
    harness: "claude",
    command: [CLAUDE],
    // Claude Code's retry setting: one retry of a failed request instead of ten with backoff.
    agentEnv: { CLAUDE_CODE_MAX_RETRIES: "1" },
    stallMinutes: STALL_MINUTES,
    scenarios: [
      { name: "fix", title: "slugify keeps punctuation", script: demoModelScripts.fixPunctuation },
      // Claude Code names a new session per process: a fault meets every Attempt, so each Run fails after three.
      { name: "rate-limited", title: "slugify keeps punctuation, behind a rate limit", script: { turns: [{ fault: "429", retryAfter: 1, times: ALWAYS }] } },
      { name: "dead", title: "slugify keeps punctuation, with no model to ask" },
      { name: "hang", title: "slugify keeps punctuation, on a model that never answers", script: { turns: [{ fault: "hang", times: ALWAYS }] } }
    ]
  })
)

const runView = (w: RealAgentWorld, runId: string, attempt?: number) =>
  board<RunView>(w.boardUrl, `/api/runs/${runId}${attempt === undefined ? "" : `?attempt=${attempt}`}`)

describe("the real Claude Code CLI through the daemon, on scripted models", () => {
  layer(world, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    it.scoped("a labelled issue becomes a Run; Claude Code reads, edits, tests and commits in a worktree; verify passes; one pull request", () =>
      Effect.gen(function* () {
        const w = yield* ClaudeWorld
        const run = yield* w.ledger.closedRun("fix", 120)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Succeeded", JSON.stringify(attempts))
        assert.strictEqual(attempts.length, 1)
        const pullNumber = attempts[0]?.outcome?.result?.pullRequestNumber ?? 0
        const headers = { authorization: `token ${w.gitHub.token}` }
        const pull = yield* json<{ title: string; head: { ref: string } }>(`${w.gitHub.url}/repos/${REPOSITORY}/pulls/${pullNumber}`, { headers })
        assert.strictEqual(pull.title, "Strip punctuation in slugify")
        const branch = yield* pushedBranch(w.gitHub.cloneUrl, pull.head.ref)
        assert.include(branch.read("src/slugify.js"), `.replace(/[^a-z0-9]+/g, "-")`)
        assert.include(branch.read("test/slugify.test.js"), "drops punctuation and collapses separators")
        assert.match(yield* branch.test, /# pass 3/)

        const view = yield* runView(w, run.id)
        const lines = view.transcript.lines
        const calls = lines.filter((l) => l.kind === "tool_call")
        assert.deepStrictEqual(calls.map((l) => l.tool), ["Read", "Edit", "Bash", "Read", "Edit", "Bash"])
        assert.include(calls[2]?.text, "node --test")
        const results = lines.filter((l) => l.kind === "tool_result")
        // Its Bash tool works in the sandbox (it needs its config folder writable).
        assert.match(results.find((l) => l.tool === "Bash")?.text ?? "", /^error: Exit code 1[\s\S]*# fail 1/)
        assert.match(results.at(-1)?.text ?? "", /# pass 3[\s\S]*Strip punctuation in slugify/)
        assert.include(lines.find((l) => l.kind === "assistant")?.text, "slugify now keeps only letters and digits")
        // The session's total; the cost is Claude Code's own, at its default price for a model it does not know
        // ($5 and $25 a million input and output tokens, $0.50 a million cache reads).
        const usage = lines.filter((l) => l.kind === "usage").map((l) => l.usage)
        assert.strictEqual(usage.length, 1)
        const { costUsd, ...tokens } = usage[0] ?? {}
        assert.deepStrictEqual(tokens, { inputTokens: 15600, outputTokens: 400, cachedInputTokens: 11300 })
        assert.closeTo(costUsd ?? 0, 4300 * 5e-6 + 11300 * 0.5e-6 + 400 * 25e-6, 1e-9)
        assert.isTrue(view.verification.some((l) => l.text.startsWith("pass (round 1, exit 0): node --test")))
        const messages = (w.models["fix"]?.requests ?? []).filter((r) => r.path === "/v1/messages")
        assert.strictEqual(messages.length, 5)
        assert.isTrue(messages.every((r) => r.apiKey === MODEL_KEY && r.model === "sim-model" && r.conversation === messages[0]?.conversation))
        // The key went in the CLI's environment only: not in its request's authorization, not in the transcript.
        assert.isTrue(messages.every((r) => r.authorization === undefined))
        assert.isFalse(JSON.stringify(view).includes(MODEL_KEY))
      }), 150_000)

    it.effect("a 429 that outlasts Claude Code's retries: each Attempt is a rate-limit InfraFailure with the provider's reset time, and the Run fails after the third", () =>
      Effect.gen(function* () {
        const w = yield* ClaudeWorld
        const run = yield* w.ledger.closedRun("rate-limited", 120)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Failed")
        assert.deepStrictEqual(attempts.map((a) => a.outcome?.failure?.reason), Array(3).fill("the model provider is rate limiting the agent"))
        assert.include(attempts[0]?.outcome?.failure?.evidence, "Request rejected (429)")
        // "Please try again in 1s": Claude Code prints the provider's words, so the engine knows when to try again.
        const first = attempts[0]
        assert.isDefined(first?.outcome?.failure?.retryAt)
        assert.isAtLeast(attempts[1]?.startedAt ?? 0, first?.outcome?.failure?.retryAt ?? Number.POSITIVE_INFINITY)
        const firstView = yield* runView(w, run.id, 1)
        assert.isTrue(firstView.transcript.lines.some((l) => l.text.startsWith("retrying the model request (1/1)")))
        // Per Attempt: the request and Claude Code's one retry.
        assert.strictEqual((w.models["rate-limited"]?.requests ?? []).filter((r) => r.path === "/v1/messages").length, 6)
      }), 150_000)

    it.effect("a dead model endpoint: each Attempt is an unreachable-provider InfraFailure", () =>
      Effect.gen(function* () {
        const w = yield* ClaudeWorld
        const run = yield* w.ledger.closedRun("dead", 120)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Failed")
        assert.deepStrictEqual(attempts.map((a) => a.outcome?.failure?.reason), Array(3).fill("the model provider is unreachable"))
        assert.match(attempts[0]?.outcome?.failure?.evidence ?? "", /Unable to connect to API/)
      }), 150_000)

    it.effect("a model that accepts the request and never answers: Claude Code waits silently, the stall limit ends the Attempt as an InfraFailure; a cancel stops the next", () =>
      Effect.gen(function* () {
        const w = yield* ClaudeWorld
        const runId = yield* eventually(
          "the silent Run's first Attempt ended",
          Effect.gen(function* () {
            const [run] = yield* w.ledger.runs("hang")
            if (run === undefined) return Option.none()
            const attempts = yield* w.ledger.attempts(run.id)
            return attempts[0]?.outcome === undefined ? Option.none() : Option.some(run.id)
          }).pipe(Effect.orElseSucceed(() => Option.none())),
          STALL_MINUTES * 60 + 60
        )
        const [first] = yield* w.ledger.attempts(runId)
        assert.strictEqual(first?.outcome?.failure?._tag, "InfraFailure", JSON.stringify(first))
        assert.match(first?.outcome?.failure?.reason ?? "", /^the agent stalled: /)
        const took = (first?.endedAt ?? 0) - (first?.startedAt ?? 0)
        assert.isAtLeast(took, STALL_MINUTES * 60_000)
        assert.isBelow(took, STALL_MINUTES * 60_000 + 30_000)
        yield* board(w.boardUrl, `/runs/${runId}/cancel`, "POST")
        const run = yield* w.ledger.closedRun("hang", 60)
        assert.strictEqual(run.state, "Canceled")
      }), (STALL_MINUTES * 60 + 150) * 1000)

    it.effect("once every Run has closed, no Claude Code process is left, nor after the daemon drains", () =>
      Effect.gen(function* () {
        const w = yield* ClaudeWorld
        for (const loop of ["fix", "rate-limited", "dead", "hang"]) yield* w.ledger.closedRun(loop, 30)
        const left = yield* eventually(
          "the agents' process groups are gone",
          Effect.sync(() => (processesUnder(w.workspaces).length === 0 ? Option.some([]) : Option.none())),
          15
        ).pipe(Effect.orElseSucceed(() => processesUnder(w.workspaces)))
        assert.deepStrictEqual(left, [])
        yield* w.usine.signal("SIGTERM")
        assert.strictEqual(yield* w.usine.exit("60 seconds"), 0, w.usine.stderr())
        assert.deepStrictEqual(processesUnder(w.dir), [])
      }), 120_000)
  })
})
