import { assert, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { ClaudeHarness } from "@usine/executor/harness/ClaudeHarness"
import type { HarnessInvocation } from "@usine/executor/harness/Harness"
import type { RecordedRequest } from "../../src/ModelSim/RecordedRequest"
import type { ModelScript } from "../../src/ModelScript"
import { agentSession, API_KEY, deadEndpoint, fixGreeting, fixGreetingUsage } from "./agentSession"
import { livingInGroup } from "./processGroup"
import { git } from "./sampleRepo"

const TIMEOUT = 40_000
const ALWAYS = Number.POSITIVE_INFINITY

/** Claude Code's retry setting, two retries instead of ten: the failure it reports is the same. */
const twoRetries = (inv: HarnessInvocation): HarnessInvocation => ({ ...inv, env: { ...inv.env, CLAUDE_CODE_MAX_RETRIES: "2" } })

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

const messages = (requests: ReadonlyArray<RecordedRequest>) => requests.filter((r) => r.path === "/v1/messages")

/** A new file through Claude Code's `Write`, then the tests and a commit through `Bash`. */
const addFarewell: ModelScript = {
  turns: [
    { write: "src/farewell.mjs", content: "export const farewell = (name) => `Goodbye, ${name}!`\n" },
    { run: "git add -A && git commit -qm 'Add farewell' && git show --stat --format=%s HEAD", usage: { input: 1400, output: 30, cached: 900 } },
    { say: "Added src/farewell.mjs and committed it." }
  ]
}

describe("the real Claude Code CLI against the scripted model (Anthropic Messages API)", () => {
  it.scopedLive(
    "a multi-turn session runs the tests, reads and edits the code, commits, and reports: tool calls, results, text and usage reach the transcript",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(ClaudeHarness, fixGreeting)
        const exit = yield* s.cli.exited("30 seconds")
        const { parser, rows } = s.parsed()
        assert.deepStrictEqual(exit, { code: 0, signal: null }, s.cli.stderr())
        assert.isUndefined(ClaudeHarness.exitFailure(exit.code, exit.signal, parser))

        const tools = rows.filter((r) => r.kind === "tool_call" || r.kind === "tool_result").map((r) => `${r.kind}:${r.tool}`)
        assert.deepStrictEqual(tools, [
          "tool_call:Bash",
          "tool_result:Bash",
          "tool_call:Read",
          "tool_call:Edit",
          "tool_result:Read",
          "tool_result:Edit",
          "tool_call:Bash",
          "tool_result:Bash"
        ])
        const results = rows.filter((r) => r.kind === "tool_result").map((r) => r.text)
        assert.match(results[0] ?? "", /^error: Exit code 1[\s\S]*# fail 1/)
        assert.match(results[2] ?? "", /has been updated successfully/)
        assert.match(results[3] ?? "", /# pass 1[\s\S]*committed/)
        assert.deepStrictEqual(rows.filter((r) => r.kind === "assistant").map((r) => r.text), [
          "Fixed the greeting in src/greet.mjs; the tests pass and the change is committed."
        ])
        // One usage row, the session's total. The cost is Claude Code's own, at its default price for a model it
        // does not know ($5 and $25 a million input and output tokens, $0.50 a million cache reads).
        const usage = rows.filter((r) => r.kind === "usage")
        assert.deepStrictEqual(usage.map((r) => r.usage), [{ ...fixGreetingUsage, costUsd: 0.023225 }])
        assert.isFalse(s.cli.lines.some((l) => ClaudeHarness.isStallLine(l.text)))

        // A real, test-passing change, committed in the worktree.
        assert.strictEqual(readFileSync(join(s.workdir, "src/greet.mjs"), "utf8"), "export const greet = (name) => `Hello, ${name}!`\n")
        assert.strictEqual(git(s.workdir, "log", "-1", "--format=%s"), "Fix the greeting")
        assert.strictEqual(git(s.workdir, "status", "--porcelain"), "")
        execFileSync(process.execPath, ["--test"], { cwd: s.workdir, stdio: "pipe" })

        // Its reachability check, then one conversation of four requests, each after the first carrying back the
        // previous tool's output; the edit's turn carried two tools, so its request carries the Edit's result.
        const requests = s.sim.requests
        assert.deepStrictEqual(requests.map((r) => `${r.method} ${r.path}#${r.index}`), [
          "HEAD /#0",
          ...[0, 1, 2, 3].map((i) => `POST /v1/messages#${i}`)
        ])
        const [first, second, third] = messages(requests)
        assert.includeMembers([...(first?.tools ?? [])], ["Bash", "Read", "Edit", "Write"])
        assert.match(second?.lastToolOutput ?? "", /# fail 1/)
        assert.match(third?.lastToolOutput ?? "", /src\/greet\.mjs has been updated/)
        assert.isTrue(messages(requests).every((r) => r.apiKey === API_KEY && r.model === "sim-model" && r.conversation === first?.conversation))
        assert.isTrue(messages(requests).every((r) => (r.body as { readonly stream?: unknown }).stream === true))
        // Its config folder is the Attempt's, and the key is in no file there.
        const written = filesUnder(s.attemptDir)
        assert.isTrue(written.some((f) => f.startsWith(join(s.attemptDir, "claude-home"))), written.join("\n"))
        assert.isFalse(written.some((f) => readFileSync(f, "utf8").includes(API_KEY)))
        assert.deepStrictEqual(filesUnder(s.home), [])
      }),
    TIMEOUT
  )

  it.scopedLive(
    "Write creates a file and Bash commits it",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(ClaudeHarness, addFarewell)
        const exit = yield* s.cli.exited("30 seconds")
        const { rows } = s.parsed()
        assert.deepStrictEqual(exit, { code: 0, signal: null }, s.cli.stderr())
        const calls = rows.filter((r) => r.kind === "tool_call")
        assert.deepStrictEqual(calls.map((r) => r.tool), ["Write", "Bash"])
        assert.include(calls[0]?.text, join(s.workdir, "src/farewell.mjs"))
        assert.match(rows.filter((r) => r.kind === "tool_result")[1]?.text ?? "", /Add farewell[\s\S]*src\/farewell\.mjs/)
        assert.strictEqual(readFileSync(join(s.workdir, "src/farewell.mjs"), "utf8"), "export const farewell = (name) => `Goodbye, ${name}!`\n")
        assert.strictEqual(git(s.workdir, "log", "-1", "--format=%s"), "Add farewell")
        assert.deepStrictEqual(rows.filter((r) => r.kind === "usage").map((r) => r.usage?.inputTokens), [900 + 1400 + 900])
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a 429 that outlasts its retries: Claude Code reports each retry (stall lines), exits 1, and the failure is a rate-limit InfraFailure carrying the reset time",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(ClaudeHarness, { turns: [{ fault: "429", retryAfter: 1, times: ALWAYS }] }, { tune: twoRetries })
        const exit = yield* s.cli.exited("30 seconds")
        assert.strictEqual(exit.code, 1)
        const retries = s.cli.lines.filter((l) => ClaudeHarness.isStallLine(l.text))
        assert.strictEqual(retries.length, 2)
        const failure = ClaudeHarness.exitFailure(exit.code, exit.signal, s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, "the model provider is rate limiting the agent")
        assert.include(failure?.evidence, "429")
        const reported = s.cli.lines.find((l) => l.text.includes('"type":"result"'))
        assert.strictEqual(failure?._tag === "InfraFailure" ? failure.retryAt : undefined, (reported?.at ?? Number.NaN) + 1000)
        assert.strictEqual(messages(s.sim.requests).length, 3)
      }),
    TIMEOUT
  )

  it.scopedLive.each([
    { name: "a stream cut mid-turn", script: { turns: [{ fault: "cut" as const, times: ALWAYS }] }, dead: false },
    { name: "a dead model endpoint", script: { turns: [] }, dead: true }
  ])(
    "$name: Claude Code retries, exits 1, and the failure is an unreachable-provider InfraFailure",
    ({ dead, script }) =>
      Effect.gen(function* () {
        const deadUrl = dead ? yield* deadEndpoint : undefined
        const s = yield* agentSession(ClaudeHarness, script, { tune: twoRetries, ...(deadUrl === undefined ? {} : { deadUrl }) })
        const exit = yield* s.cli.exited("30 seconds")
        assert.strictEqual(exit.code, 1)
        const failure = ClaudeHarness.exitFailure(exit.code, exit.signal, s.parsed().parser)
        assert.strictEqual(failure?._tag, "InfraFailure")
        assert.strictEqual(failure?.reason, "the model provider is unreachable")
        assert.match(failure?.evidence ?? "", /Unable to connect to API/)
        // A broken stream is retried without streaming.
        const sent = messages(s.sim.requests).map((r) => (r.body as { readonly stream?: unknown }).stream === true)
        assert.deepStrictEqual(sent, dead ? [] : [true, false, false, false])
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a model that accepts the request and never answers: Claude Code waits silently, a stall only the executor's timer sees; killing its group leaves nothing behind",
    () =>
      Effect.gen(function* () {
        const s = yield* agentSession(ClaudeHarness, { turns: [{ fault: "hang" }] })
        yield* s.cli.lineWhere((l) => l.includes('"subtype":"init"'), "15 seconds")
        yield* Effect.suspend(() => (messages(s.sim.requests).length === 1 ? Effect.void : Effect.fail("no request yet"))).pipe(
          Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("15 seconds")))
        )
        const printed = s.cli.lines.length
        yield* Effect.sleep("4 seconds")
        assert.strictEqual(s.cli.lines.length, printed, "Claude Code printed something while it waited")
        assert.strictEqual(messages(s.sim.requests).length, 1)
        yield* s.cli.killGroup
        assert.deepStrictEqual(livingInGroup(s.cli.pgid), [])
        assert.strictEqual(ClaudeHarness.exitFailure(null, "SIGKILL", s.parsed().parser)?._tag, "InfraFailure")
      }),
    TIMEOUT
  )
})
