import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { CodexHarness } from "@usine/executor/harness/CodexHarness"
import type { HarnessInvocation } from "@usine/executor/harness/Harness"
import { agentSession, API_KEY, deadEndpoint, fixGreeting, fixGreetingUsage } from "./agentSession"
import { livingInGroup } from "./processGroup"
import { git } from "./sampleRepo"

const TIMEOUT = 30_000
const ALWAYS = Number.POSITIVE_INFINITY

/**
 * Codex's documented provider setting, one stream retry instead of five. The harness's provider table is the last
 * one in its config.toml, so an appended key belongs to it.
 */
const oneStreamRetry = (inv: HarnessInvocation): HarnessInvocation => ({
  ...inv,
  files: { ...inv.files, "codex-home/config.toml": `${inv.files["codex-home/config.toml"] ?? ""}stream_max_retries = 1\n` }
})

const isReconnecting = (line: string) => line.includes("Reconnecting...")

describe("the real Codex CLI against the scripted model", () => {
  it.scopedLive(
    "a multi-turn session runs the tests, edits the code, commits, and reports: commands, outputs, text and usage reach the transcript",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, fixGreeting)
        const exit = yield* s.cli.exited("25 seconds")
        const { parser, rows } = s.parsed()
        assert.deepStrictEqual(exit, { code: 0, signal: null }, s.cli.stderr())
        assert.isUndefined(CodexHarness.exitFailure(exit.code, exit.signal, parser))

        const calls = rows.filter((r) => r.kind === "tool_call")
        assert.deepStrictEqual(calls.map((r) => r.tool), ["shell", "shell", "shell"])
        assert.include(calls[0]?.text, "node --test")
        assert.include(calls[1]?.text, "src/greet.mjs")
        const results = rows.filter((r) => r.kind === "tool_result").map((r) => r.text)
        assert.strictEqual(results.length, 3)
        assert.match(results[0] ?? "", /# fail 1[\s\S]*\[exit code 1\]/)
        assert.match(results[2] ?? "", /# pass 1[\s\S]*committed/)
        assert.deepStrictEqual(rows.filter((r) => r.kind === "assistant").map((r) => r.text), [
          "Fixed the greeting in src/greet.mjs; the tests pass and the change is committed."
        ])
        const usage = rows.filter((r) => r.kind === "usage")
        assert.deepStrictEqual(usage.map((r) => r.usage), [fixGreetingUsage])

        assert.strictEqual(readFileSync(join(s.workdir, "src/greet.mjs"), "utf8"), "export const greet = (name) => `Hello, ${name}!`\n")
        assert.strictEqual(git(s.workdir, "log", "-1", "--format=%s"), "Fix the greeting")
        execFileSync(process.execPath, ["--test"], { cwd: s.workdir, stdio: "pipe" })

        const requests = s.sim.requests
        assert.deepStrictEqual(requests.map((r) => `${r.path}#${r.index}`), [0, 1, 2, 3].map((i) => `/v1/responses#${i}`))
        assert.isTrue(requests[0]?.tools.includes("exec_command"))
        assert.match(requests[1]?.lastToolOutput ?? "", /# fail 1/)
        assert.isTrue(requests.every((r) => r.authorization === `Bearer ${API_KEY}` && r.model === "sim-model"))
        const config = readFileSync(join(s.attemptDir, "codex-home/config.toml"), "utf8")
        assert.include(config, `base_url = "${s.sim.baseUrl}"`)
        const written = readdirSync(s.attemptDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
        assert.isFalse(written.some((e) => readFileSync(join(e.parentPath, e.name)).includes(API_KEY)))
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a 429 that does not pass: Codex retries, its turn fails, and the failure is an InfraFailure (Codex does not print the reset time)",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, { turns: [{ fault: "429", retryAfter: 1, times: ALWAYS }] })
        // The app-server (ADR 0068) reports the failed turn in its stream and exits once its input is closed.
        const exit = yield* s.cli.exited("25 seconds")
        assert.isTrue(s.cli.lines.some((l) => isReconnecting(l.text) && CodexHarness.isStallLine(l.text)))
        const failure = CodexHarness.exitFailure(exit.code, exit.signal, s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, "the model provider is rate limiting the agent")
        assert.include(failure?.evidence, "429 Too Many Requests")
        assert.isUndefined(failure?._tag === "InfraFailure" ? failure.retryAt : "not an InfraFailure")
        // Codex honoured retry-after: one request a second, six in all.
        assert.strictEqual(s.sim.requests.length, 6)
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a 429 with a long retry-after: Codex says it is reconnecting, then waits; its lines are stall lines",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, { turns: [{ fault: "429", retryAfter: 120, times: ALWAYS }] })
        const line = yield* s.cli.lineWhere(isReconnecting, "15 seconds")
        assert.include(line.text, "429 Too Many Requests")
        assert.isTrue(CodexHarness.isStallLine(line.text))
        const printed = s.cli.lines.length
        yield* Effect.sleep("3 seconds")
        assert.strictEqual(s.cli.lines.length, printed)
        assert.strictEqual(s.sim.requests.length, 1)
        yield* s.cli.killGroup
        assert.deepStrictEqual(livingInGroup(s.cli.pgid), [])
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a dead model endpoint: Codex reconnects forever; its lines are stall lines, and killing its group leaves nothing behind",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, { turns: [] }, { deadUrl: yield* deadEndpoint })
        const line = yield* s.cli.lineWhere(isReconnecting, "20 seconds")
        assert.include(line.text, "waiting for network")
        assert.isTrue(CodexHarness.isStallLine(line.text))
        assert.isUndefined(s.parsed().parser.failure())
        yield* s.cli.killGroup
        assert.deepStrictEqual(livingInGroup(s.cli.pgid), [])
        assert.strictEqual(CodexHarness.exitFailure(null, "SIGKILL", s.parsed().parser)?._tag, "InfraFailure")
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a model that never answers: Codex prints nothing after the turn starts, a stall only the executor's timer sees",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, { turns: [{ fault: "hang" }] })
        yield* s.cli.lineWhere((l) => l.includes('"turn.started"') || l.includes('"turn/started"'), "15 seconds")
        // Codex may print turn/started before its request reaches the model server: wait for it, 50 ms apart.
        yield* Effect.suspend(() => (s.sim.requests.length === 1 ? Effect.void : Effect.fail("no request yet"))).pipe(
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("15 seconds")))
        )
        const printed = s.cli.lines.length
        yield* Effect.sleep("3 seconds")
        assert.strictEqual(s.cli.lines.length, printed)
        yield* s.cli.killGroup
        assert.deepStrictEqual(livingInGroup(s.cli.pgid), [])
      }),
    TIMEOUT
  )

  it.scopedLive.each([
    { name: "a stream cut mid-turn", reason: "the model provider is unreachable", evidence: /stream disconnected before completion/, fault: "cut" as const },
    { name: "a 500", reason: "the model provider is unavailable", evidence: /high demand/, fault: "500" as const }
  ])(
    "$name: Codex retries, its turn fails, and the failure is an InfraFailure",
    ({ evidence, fault, reason }) =>
      Effect.gen(function* () {
        const s = yield* agentSession(CodexHarness, { turns: [{ fault, times: ALWAYS }] }, { tune: oneStreamRetry })
        // The app-server (ADR 0068) reports the failed turn in its stream and exits once its input is closed.
        const exit = yield* s.cli.exited("25 seconds")
        const failure = CodexHarness.exitFailure(exit.code, exit.signal, s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, reason)
        assert.match(failure?.evidence ?? "", evidence)
      }),
    TIMEOUT
  )
})
