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

/** The real Codex CLI (`@openai/codex`, a dev dependency): its npm launcher starts the native binary. */
const CODEX = fileURLToPath(new URL("../node_modules/.bin/codex", import.meta.url))
const ALWAYS = Number.POSITIVE_INFINITY
// Codex gives up on a dead provider after some 27 s of its own retries (30.3 s on a loaded CI machine): the stall
// limit sits well above, so the dead scenario shows which of the two ended the Attempt. No scenario waits for it.
const STALL_MINUTES = 1

class CodexWorld extends Context.Tag("test/CodexWorld")<CodexWorld, RealAgentWorld>() {}

const world = Layer.scoped(
  CodexWorld,
  realAgentWorld({
    harness: "codex",
    command: [CODEX],
    stallMinutes: STALL_MINUTES,
    scenarios: [
      { name: "fix", title: "slugify keeps punctuation", script: demoModelScripts.fixPunctuation },
      // Codex names a new conversation per process: a fault meets every Attempt, so each Run fails after three.
      { name: "rate-limited", title: "slugify keeps punctuation, behind a rate limit", script: { turns: [{ fault: "429", retryAfter: 1, times: ALWAYS }] } },
      { name: "cut", title: "slugify keeps punctuation, on a stream that breaks", script: { turns: [{ fault: "cut", times: ALWAYS }] } },
      { name: "dead", title: "slugify keeps punctuation, with no model to ask" }
    ]
  })
)

const runView = (w: RealAgentWorld, runId: string, attempt?: number) =>
  board<RunView>(w.boardUrl, `/api/runs/${runId}${attempt === undefined ? "" : `?attempt=${attempt}`}`)

describe("the real Codex CLI through the daemon, on scripted models", () => {
  layer(world, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    it.scoped("a labelled issue becomes a Run; Codex edits, tests and commits in a worktree; verify passes; one pull request", () =>
      Effect.gen(function* () {
        const w = yield* CodexWorld
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
        assert.match(yield* branch.test, /# pass 3/)

        const view = yield* runView(w, run.id)
        const lines = view.transcript.lines
        const calls = lines.filter((l) => l.kind === "tool_call")
        assert.deepStrictEqual(calls.map((l) => l.tool), ["shell", "shell", "shell", "shell"])
        assert.include(calls[1]?.text, "node --test")
        const results = lines.filter((l) => l.kind === "tool_result")
        assert.match(results[1]?.text ?? "", /# fail 1/)
        assert.match(results[3]?.text ?? "", /# pass 3[\s\S]*Strip punctuation in slugify/)
        assert.deepStrictEqual(
          lines.filter((l) => l.kind === "usage").map((l) => l.usage),
          [{ inputTokens: 15600, outputTokens: 400, cachedInputTokens: 11300 }]
        )
        assert.isTrue(view.verification.some((l) => l.text.startsWith("pass (round 1, exit 0): node --test")))
        const requests = w.models["fix"]?.requests ?? []
        assert.strictEqual(requests.length, 5)
        assert.isTrue(requests.every((r) => r.path === "/v1/responses" && r.authorization === `Bearer ${MODEL_KEY}`))
      }), 150_000)

    it.effect("a 429 that outlasts Codex's own retries: each Attempt is an InfraFailure, and the Run fails after the third", () =>
      Effect.gen(function* () {
        const w = yield* CodexWorld
        const run = yield* w.ledger.closedRun("rate-limited", 120)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Failed")
        assert.deepStrictEqual(attempts.map((a) => a.outcome?.failure?.reason), Array(3).fill("the model provider is rate limiting the agent"))
        assert.include(attempts[0]?.outcome?.failure?.evidence, "429 Too Many Requests")
        // Codex does not print the provider's reset time, so the engine retries at once: no Agent hold.
        assert.isUndefined(attempts[0]?.outcome?.failure?.retryAt)
      }), 150_000)

    it.effect("a stream cut mid-turn: each Attempt is an InfraFailure", () =>
      Effect.gen(function* () {
        const w = yield* CodexWorld
        const run = yield* w.ledger.closedRun("cut", 150)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Failed")
        assert.deepStrictEqual(attempts.map((a) => a.outcome?.failure?.reason), Array(3).fill("the model provider is unreachable"))
        assert.match(attempts[0]?.outcome?.failure?.evidence ?? "", /stream disconnected before completion/)
      }), 180_000)

    it.effect("a dead model endpoint behind the Attempt's model proxy: Codex's retries run out, the Attempt is an InfraFailure, the provider unreachable, before any stall limit; a cancel stops the next", () =>
      Effect.gen(function* () {
        const w = yield* CodexWorld
        const runId = yield* eventually(
          "the dead Run's first Attempt ended",
          Effect.gen(function* () {
            const [run] = yield* w.ledger.runs("dead")
            if (run === undefined) return Option.none()
            const attempts = yield* w.ledger.attempts(run.id)
            return attempts[0]?.outcome === undefined ? Option.none() : Option.some(run.id)
          }).pipe(Effect.orElseSucceed(() => Option.none())),
          STALL_MINUTES * 60 + 60
        )
        const [first] = yield* w.ledger.attempts(runId)
        assert.strictEqual(first?.outcome?.failure?._tag, "InfraFailure", JSON.stringify(first))
        // Since ADR 0086 Codex talks to its Attempt's model proxy, which drops each request the dead provider cannot
        // take: Codex retries, gives up and exits, and the reason says so; against a dead endpoint of its own it used to
        // reconnect until the stall limit.
        assert.match(first?.outcome?.failure?.reason ?? "", /^the model provider is unreachable/, JSON.stringify(first))
        const took = (first?.endedAt ?? 0) - (first?.startedAt ?? 0)
        assert.isBelow(took, STALL_MINUTES * 60_000, "ended by Codex's own give-up, not by the stall limit")

        yield* board(w.boardUrl, `/runs/${runId}/cancel`, "POST")
        const run = yield* w.ledger.closedRun("dead", 60)
        assert.strictEqual(run.state, "Canceled")
      }), (STALL_MINUTES * 60 + 150) * 1000)

    it.effect("once every Run has closed, no Codex process is left, nor after the daemon drains", () =>
      Effect.gen(function* () {
        const w = yield* CodexWorld
        for (const loop of ["fix", "rate-limited", "cut", "dead"]) yield* w.ledger.closedRun(loop, 30)
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
