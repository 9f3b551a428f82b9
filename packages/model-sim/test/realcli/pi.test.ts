import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { HarnessInvocation } from "@usine/executor/harness/Harness"
import { PiHarness } from "@usine/executor/harness/PiHarness"
import type { ModelScript } from "../../src/ModelScript"
import { agentSession, API_KEY, deadEndpoint, fixGreeting, fixGreetingUsage } from "./agentSession"
import { livingInGroup } from "./processGroup"
import { git } from "./sampleRepo"

const TIMEOUT = 30_000
const ALWAYS = Number.POSITIVE_INFINITY

/** Pi's documented retry settings, one quick retry instead of 2 + 4 + 8 s: the failure it reports is the same. */
const quickRetries = (inv: HarnessInvocation): HarnessInvocation => ({
  ...inv,
  files: { ...inv.files, "pi-agent/settings.json": JSON.stringify({ retry: { maxRetries: 1, baseDelayMs: 100 } }) }
})

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

describe("the real Pi CLI against the scripted model", () => {
  it.scopedLive(
    "a multi-turn session runs the tests, edits the code, commits, and reports: tool calls, results, text and usage reach the transcript",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(PiHarness, fixGreeting)
        const exit = yield* s.cli.exited("25 seconds")
        const { parser, rows } = s.parsed()
        assert.deepStrictEqual(exit, { code: 0, signal: null }, s.cli.stderr())
        assert.isUndefined(PiHarness.exitFailure(exit.code, exit.signal, parser))

        const tools = rows.filter((r) => r.kind === "tool_call" || r.kind === "tool_result").map((r) => `${r.kind}:${r.tool}`)
        assert.deepStrictEqual(tools, ["tool_call:bash", "tool_result:bash", "tool_call:edit", "tool_result:edit", "tool_call:bash", "tool_result:bash"])
        const results = rows.filter((r) => r.kind === "tool_result").map((r) => r.text)
        assert.match(results[0] ?? "", /# fail 1/)
        assert.match(results[2] ?? "", /# pass 1[\s\S]*committed/)
        assert.deepStrictEqual(rows.filter((r) => r.kind === "assistant").map((r) => r.text), [
          "Fixed the greeting in src/greet.mjs; the tests pass and the change is committed."
        ])
        const usage = rows.filter((r) => r.kind === "usage")
        assert.strictEqual(usage.length, 4)
        assert.deepStrictEqual(usage[usage.length - 1]?.usage, { ...fixGreetingUsage, costUsd: 0 })
        // No retry of Pi's own (the stall lines a session without probes can have; ADR 0093 adds idle-probe answers).
        assert.isFalse(s.cli.lines.some((l) => l.text.includes("auto_retry_start") && PiHarness.isStallLine(l.text)))

        // A real, test-passing change, committed in the worktree.
        assert.strictEqual(readFileSync(join(s.workdir, "src/greet.mjs"), "utf8"), "export const greet = (name) => `Hello, ${name}!`\n")
        assert.strictEqual(git(s.workdir, "log", "-1", "--format=%s"), "Fix the greeting")
        assert.strictEqual(git(s.workdir, "status", "--porcelain"), "")
        execFileSync(process.execPath, ["--test"], { cwd: s.workdir, stdio: "pipe" })

        // One conversation, four model requests, each after the first carrying the previous tool's output.
        const requests = s.sim.requests
        assert.deepStrictEqual(requests.map((r) => `${r.path}#${r.index}`), [0, 1, 2, 3].map((i) => `/v1/chat/completions#${i}`))
        assert.deepStrictEqual(requests[0]?.tools, ["read", "bash", "edit", "write"])
        assert.match(requests[1]?.lastToolOutput ?? "", /# fail 1/)
        assert.isTrue(requests.every((r) => r.authorization === `Bearer ${API_KEY}` && r.model === "sim-model"))
        // The harness's config is in the Attempt's folder, and the key is not in any file there.
        const written = filesUnder(s.attemptDir)
        assert.include(written, join(s.attemptDir, "pi-agent/models.json"))
        assert.isFalse(written.some((f) => readFileSync(f, "utf8").includes(API_KEY)))
      }),
    TIMEOUT
  )

  const silent: ReadonlyArray<{ readonly name: string; readonly script: ModelScript }> = [
    { name: "a 429 with a long retry-after", script: { turns: [{ fault: "429", retryAfter: 120, times: ALWAYS }] } },
    { name: "a model that accepts the request and never answers", script: { turns: [{ fault: "hang" }] } }
  ]
  it.scopedLive.each(silent)(
    "$name: Pi waits silently, a stall only the executor's timer sees; killing its group leaves nothing behind",
    ({ script }) =>
      Effect.gen(function* () {
        const s = yield* agentSession(PiHarness, script)
        yield* s.cli.lineWhere((l) => l.includes('"type":"message_end"') && l.includes('"role":"user"'), "15 seconds")
        const printed = s.cli.lines.length
        yield* Effect.sleep("4 seconds")
        assert.strictEqual(s.cli.lines.length, printed, "Pi printed something while it waited")
        assert.strictEqual(s.sim.requests.length, 1)
        // No retry of Pi's own (the stall lines a session without probes can have; ADR 0093 adds idle-probe answers).
        assert.isFalse(s.cli.lines.some((l) => l.text.includes("auto_retry_start") && PiHarness.isStallLine(l.text)))

        yield* s.cli.killGroup
        assert.deepStrictEqual(livingInGroup(s.cli.pgid), [])
        const failure = PiHarness.exitFailure(null, "SIGKILL", s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a 429 with a short reset: Pi retries, gives up, and the failure is an InfraFailure carrying the reset time",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(PiHarness, { turns: [{ fault: "429", retryAfter: 1, times: ALWAYS }] }, { tune: quickRetries })
        const exit = yield* s.cli.exited("25 seconds")
        const { parser } = s.parsed()
        assert.isTrue(s.cli.lines.some((l) => PiHarness.isStallLine(l.text)), "Pi's retry is reported, and is no progress")
        const failure = PiHarness.exitFailure(exit.code, exit.signal, parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, "the model provider is rate limiting the agent")
        // "Please try again in 1s", said by the provider, read at the line that reported it.
        const reported = s.cli.lines.find((l) => l.text.includes('"auto_retry_end"'))
        const retryAt = failure?._tag === "InfraFailure" ? failure.retryAt : undefined
        assert.strictEqual(retryAt, (reported?.at ?? Number.NaN) + 1000)
      }),
    TIMEOUT
  )

  it.scopedLive.each([
    { name: "a stream cut mid-turn", evidence: /stream disconnected/, script: { turns: [{ fault: "cut" as const, times: ALWAYS }] } },
    { name: "a dead model endpoint", evidence: /Connection error/, script: { turns: [] }, dead: true }
  ])(
    "$name becomes an InfraFailure, though Pi exits 0",
    ({ dead, evidence, script }) =>
      Effect.gen(function* () {
        const deadUrl = dead === true ? yield* deadEndpoint : undefined
        const s = yield* agentSession(PiHarness, script, { tune: quickRetries, ...(deadUrl === undefined ? {} : { deadUrl }) })
        const exit = yield* s.cli.exited("25 seconds")
        assert.strictEqual(exit.code, 0, "Pi reports a failed session in its stream, not in its exit code")
        const failure = PiHarness.exitFailure(exit.code, exit.signal, s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, "the model provider is unreachable")
        assert.match(failure?.evidence ?? "", evidence)
        assert.strictEqual(s.sim.requests.length, dead === true ? 0 : 2)
      }),
    TIMEOUT
  )
})
