import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer, Option } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { demoModelScripts } from "../src/demo/demoModelScripts"
import { PI_CLI } from "../src/demo/demoAgents"
import { REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { MODEL_KEY, type RealAgentWorld, realAgentWorld } from "./realAgents/RealAgentWorld"
import { processesUnder } from "./realAgents/processesUnder"
import { pushedBranch } from "./realAgents/pushedBranch"

const FIX = demoModelScripts.fixPunctuation
const after = (...faults: ModelScript["turns"]): ModelScript => ({ turns: [...faults, ...FIX.turns] })

// The stall scenario's limit: half a minute of silence costs the test half a real minute.
const STALL_MINUTES = 0.5
// Every other Loop's: far past the longest silence of a working Pi (its start, a `node --test` tool call) on a loaded
// machine, so only the stall scenario can stall.
const WORKING_STALL_MINUTES = 5

// How long the scripted provider's 429 says to wait: long against an Attempt's ending, short against the test's bounds.
const RATE_LIMIT_RESET_SECONDS = 15

class PiWorld extends Context.Tag("test/PiWorld")<PiWorld, RealAgentWorld>() {}

const world = Layer.scoped(
  PiWorld,
  realAgentWorld({
    harness: "pi",
    command: [process.execPath, PI_CLI],
    stallMinutes: WORKING_STALL_MINUTES,
    scenarios: [
      { name: "fix", title: "slugify keeps punctuation", script: FIX },
      // Pi tries twice per session (its project settings): both requests of Attempt 1 meet the fault.
      // The reset must outlive Attempt 1's ending (Pi's report, its exit, the outcome recorded: 2-3 s here, more on a
      // loaded machine); a reset already past when the outcome is recorded rightly holds nothing.
      {
        name: "rate-limited",
        title: "slugify keeps punctuation, behind a rate limit",
        script: after({ fault: "429", retryAfter: RATE_LIMIT_RESET_SECONDS, times: 2 })
      },
      { name: "cut", title: "slugify keeps punctuation, on a stream that breaks", script: after({ fault: "cut", times: 2 }) },
      {
        name: "hang",
        title: "slugify keeps punctuation, on a model that stops answering",
        script: after({ fault: "hang" }),
        stallMinutes: STALL_MINUTES
      },
      { name: "dead", title: "slugify keeps punctuation, with no model to ask" }
    ]
  })
)

const runView = (w: RealAgentWorld, runId: string, attempt?: number) =>
  board<RunView>(w.boardUrl, `/api/runs/${runId}${attempt === undefined ? "" : `?attempt=${attempt}`}`)

/** The Run's pull request on the emulator, and its branch as pushed. */
const pushedWork = (w: RealAgentWorld, pullNumber: number) =>
  Effect.gen(function* () {
    const headers = { authorization: `token ${w.gitHub.token}` }
    const pull = yield* json<{ title: string; state: string; head: { ref: string } }>(`${w.gitHub.url}/repos/${REPOSITORY}/pulls/${pullNumber}`, { headers })
    return { pull, branch: yield* pushedBranch(w.gitHub.cloneUrl, pull.head.ref) }
  })

const FIXED_SLUGIFY = `.replace(/[^a-z0-9]+/g, "-")`

describe("the real Pi CLI through the daemon, on scripted models", () => {
  layer(world, { excludeTestServices: true, timeout: "60 seconds" })((it) => {
    it.scoped("a labelled issue becomes a Run; Pi edits, tests and commits in a worktree; verify passes; one pull request", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        const run = yield* w.ledger.closedRun("fix", 90)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Succeeded", JSON.stringify(attempts))
        assert.strictEqual(run.number, w.issues["fix"])
        assert.strictEqual(attempts.length, 1)
        const result = attempts[0]?.outcome?.result
        assert.isDefined(result?.pullRequestNumber)

        const { branch, pull } = yield* pushedWork(w, result?.pullRequestNumber ?? 0)
        assert.strictEqual(pull.title, "Strip punctuation in slugify", "the title is Pi's own commit subject")
        assert.strictEqual(pull.state, "open")
        assert.include(branch.read("src/slugify.js"), FIXED_SLUGIFY)
        assert.match(yield* branch.test, /# pass 3/, "the pushed change passes the project's tests, its new regression test included")
        const pulls = yield* json<ReadonlyArray<{ head: { ref: string } }>>(`${w.gitHub.url}/repos/${REPOSITORY}/pulls?state=all&per_page=100`, {
          headers: { authorization: `token ${w.gitHub.token}` }
        })
        assert.strictEqual(pulls.filter((p) => p.head.ref === pull.head.ref).length, 1)

        // The Board's JSON twin of the Run page: Pi's tool calls, their results, its words and its usage.
        const view = yield* runView(w, run.id)
        const lines = view.transcript.lines
        assert.deepStrictEqual(
          lines.filter((l) => l.kind === "tool_call").map((l) => l.tool),
          ["edit", "bash", "edit", "bash"]
        )
        const results = lines.filter((l) => l.kind === "tool_result")
        assert.strictEqual(results.length, 4)
        assert.match(results[1]?.text ?? "", /# fail 1/, "the new regression test fails before the fix")
        assert.match(results[3]?.text ?? "", /# pass 3[\s\S]*Strip punctuation in slugify/)
        assert.match(lines.filter((l) => l.kind === "assistant").at(-1)?.text ?? "", /^slugify now keeps only letters and digits/)
        const usage = lines.filter((l) => l.kind === "usage")
        assert.strictEqual(usage.length, 5, "one usage row per model turn")
        assert.deepStrictEqual(usage.at(-1)?.usage, { inputTokens: 15600, outputTokens: 400, cachedInputTokens: 11300, costUsd: 0 })
        assert.deepStrictEqual(view.usage, usage.at(-1)?.usage)
        assert.isTrue(view.verification.some((l) => l.text.startsWith("pass (round 1, exit 0): node --test")))
        assert.isFalse(lines.some((l) => l.text.includes(MODEL_KEY)))

        // The key came from the daemon's environment through `api_key_env`; one conversation of five requests.
        const requests = w.models["fix"]?.requests ?? []
        assert.strictEqual(requests.length, 5)
        assert.isTrue(requests.every((r) => r.authorization === `Bearer ${MODEL_KEY}` && r.model === "sim-model"))
      }), 120_000)

    it.effect("a 429 with a reset time: Attempt 1 is an InfraFailure with retryAt, the Agent is held, Attempt 2 starts after it", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        const run = yield* w.ledger.closedRun("rate-limited", 90)
        const [first, second, ...rest] = yield* w.ledger.attempts(run.id)
        assert.strictEqual(first?.outcome?.failure?._tag, "InfraFailure", JSON.stringify(first))
        assert.strictEqual(first?.outcome?.failure?.reason, "the model provider is rate limiting the agent")
        const retryAt = first?.outcome?.failure?.retryAt ?? Number.NaN
        assert.isAbove(retryAt, first?.startedAt ?? Number.POSITIVE_INFINITY)
        assert.isAbove(retryAt, first?.endedAt ?? Number.POSITIVE_INFINITY, "the reset was still ahead when Attempt 1 ended: a hold is due")
        const hold = yield* w.ledger.agentHold("pi-rate-limited")
        assert.isTrue(Option.isSome(hold) && hold.value.until === retryAt, "the engine held the Agent until the reset")
        assert.isAtLeast(second?.startedAt ?? 0, retryAt, "the next Attempt waited for the reset")
        assert.strictEqual(second?.outcome?._tag, "Succeeded", JSON.stringify(second))
        assert.deepStrictEqual(rest, [])
        assert.strictEqual(run.state, "Succeeded")
      }), 120_000)

    it.effect("a stream cut mid-turn: Attempt 1 is an InfraFailure; the engine retries and Attempt 2 succeeds", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        const run = yield* w.ledger.closedRun("cut", 90)
        const [first, second] = yield* w.ledger.attempts(run.id)
        assert.strictEqual(first?.outcome?.failure?._tag, "InfraFailure", JSON.stringify(first))
        assert.strictEqual(first?.outcome?.failure?.reason, "the model provider is unreachable")
        assert.match(first?.outcome?.failure?.evidence ?? "", /stream disconnected/)
        assert.strictEqual(second?.outcome?._tag, "Succeeded")
        const firstView = yield* runView(w, run.id, 1)
        assert.isTrue(firstView.transcript.lines.some((l) => l.kind === "error" && /stream disconnected|terminated/.test(l.text)))
      }), 120_000)

    it.effect("a dead model endpoint: every Attempt is an InfraFailure, and the Run fails after the third", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        const run = yield* w.ledger.closedRun("dead", 90)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(run.state, "Failed")
        assert.deepStrictEqual(attempts.map((a) => a.outcome?.failure?.reason), Array(3).fill("the model provider is unreachable"))
        assert.match(attempts[0]?.outcome?.failure?.evidence ?? "", /Connection error/)
      }), 120_000)

    it.effect("a model that stops answering: Pi waits silently, the stall limit ends Attempt 1 as an InfraFailure", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        const run = yield* w.ledger.closedRun("hang", STALL_MINUTES * 60 + 90)
        const [first, second] = yield* w.ledger.attempts(run.id)
        assert.strictEqual(first?.outcome?.failure?._tag, "InfraFailure", JSON.stringify(first))
        assert.match(first?.outcome?.failure?.reason ?? "", /^the agent stalled: /)
        // Measured from Pi's last transcript row before the stall, not from the Attempt's start: Pi's own start-up
        // (20 s and more when several start at once on a loaded machine) is no part of the silence.
        const lines = (yield* runView(w, run.id, 1)).transcript.lines
        const stalledAt = lines.findIndex((l) => l.kind === "error" && /stalled: no output/.test(l.text))
        assert.isAbove(stalledAt, 0, JSON.stringify(lines))
        const silent = (first?.endedAt ?? 0) - (lines[stalledAt - 1]?.at ?? Number.POSITIVE_INFINITY)
        assert.isAtLeast(silent, STALL_MINUTES * 60_000)
        assert.isBelow(silent, STALL_MINUTES * 60_000 + 30_000, "the stall is seen within the limit and a poll")
        assert.strictEqual(second?.outcome?._tag, "Succeeded")
      }), (STALL_MINUTES * 60 + 120) * 1000)

    it.effect("once every Run has closed, no agent process is left, nor after the daemon drains", () =>
      Effect.gen(function* () {
        const w = yield* PiWorld
        for (const loop of ["fix", "rate-limited", "cut", "dead", "hang"]) yield* w.ledger.closedRun(loop, 30)
        const left = yield* eventually(
          "the agents' process groups are gone",
          Effect.sync(() => {
            const found = processesUnder(w.workspaces)
            return found.length === 0 ? Option.some(found) : Option.none()
          }),
          15
        ).pipe(Effect.orElseSucceed(() => processesUnder(w.workspaces)))
        assert.deepStrictEqual(left, [])
        yield* w.usine.signal("SIGTERM")
        assert.strictEqual(yield* w.usine.exit("60 seconds"), 0, w.usine.stderr())
        assert.deepStrictEqual(processesUnder(w.dir), [])
      }), 120_000)
  })
})
