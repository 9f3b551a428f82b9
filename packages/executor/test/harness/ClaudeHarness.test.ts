import { assert, describe, it } from "@effect/vitest"
import { ClaudeHarness } from "../../src/harness/ClaudeHarness"
import { CLAUDE_TASK_UUID, claudeChannel, claudeUserLine } from "../../src/harness/claudeChannel"
import { replay, replayLines } from "./replay"

const input = { prompt: "do it", model: undefined, workdir: "/w/tree", attemptDir: "/w/attempt", command: undefined }

describe("ClaudeHarness", () => {
  it("starts claude -p with stream-json input and output, the task a user message on stdin", () => {
    const inv = ClaudeHarness.invocation({ ...input, model: "opus" })
    assert.deepStrictEqual(inv.argv, [
      "claude",
      "-p",
      "--input-format",
      "stream-json",
      "--replay-user-messages",
      "--output-format",
      "stream-json",
      "--verbose",
      "--dangerously-skip-permissions",
      "--model",
      "opus"
    ])
    assert.deepStrictEqual(JSON.parse(inv.stdin ?? ""), {
      type: "user",
      uuid: CLAUDE_TASK_UUID,
      message: { role: "user", content: [{ type: "text", text: "do it" }] }
    })
    assert.strictEqual(ClaudeHarness.channel?._tag, "Stdin")
    assert.deepStrictEqual(ClaudeHarness.invocation({ ...input, command: ["/x/claude"] }).argv[0], "/x/claude")
    // Unattended: the CLI would refuse to skip permissions as root, and nothing but the model is called.
    assert.deepStrictEqual(inv.env, {
      IS_SANDBOX: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
    })
    assert.deepStrictEqual(inv.files, {})
  })

  it("points the CLI at a provider: its origin without /v1, the key in the environment, a config folder of the Attempt's own", () => {
    const inv = ClaudeHarness.invocation({
      ...input,
      model: "opus",
      modelProvider: { baseUrl: "http://127.0.0.1:4010/v1", apiKey: "sk-sim", model: "sim-model" }
    })
    assert.deepStrictEqual(inv.argv.slice(-2), ["--model", "sim-model"])
    assert.strictEqual(inv.env["ANTHROPIC_BASE_URL"], "http://127.0.0.1:4010")
    assert.strictEqual(inv.env["ANTHROPIC_API_KEY"], "sk-sim")
    assert.strictEqual(inv.env["CLAUDE_CONFIG_DIR"], "/w/attempt/claude-home")
    // A harness file creates the folder, and so makes it writable in the sandbox.
    assert.deepStrictEqual(inv.files, { "claude-home/settings.json": "{}\n" })
    const keyless = ClaudeHarness.invocation({ ...input, modelProvider: { baseUrl: "https://models.internal/anthropic/v1/", model: "m" } })
    assert.strictEqual(keyless.env["ANTHROPIC_BASE_URL"], "https://models.internal/anthropic")
    assert.notProperty(keyless.env, "ANTHROPIC_API_KEY")
  })

  it("maps a stream recorded from the real CLI (2.1.197 on the scripted model): Bash, Read and Edit in one message, usage summed over turns", () => {
    const { parser, rows } = replay(ClaudeHarness, "claude-stream.jsonl")
    assert.deepStrictEqual(
      rows.map((r) => `${r.kind}:${r.tool ?? ""}`),
      [
        "system:",
        "tool_call:Bash",
        "tool_result:Bash",
        "tool_call:Read",
        "tool_call:Edit",
        "tool_result:Read",
        "tool_result:Edit",
        "tool_call:Bash",
        "tool_result:Bash",
        "assistant:",
        "usage:"
      ]
    )
    assert.strictEqual(rows[1]?.text, "node --test")
    assert.match(rows[2]?.text ?? "", /^error: Exit code 1\n[\s\S]*# fail 1/)
    assert.include(rows[4]?.text, '"old_string":"\\"Hello \\" + name"')
    assert.match(rows[8]?.text ?? "", /# pass 1[\s\S]*committed$/)
    assert.strictEqual(rows[9]?.text, "Fixed the greeting in src/greet.mjs; the tests pass and the change is committed.")
    // The result's usage is the session's total; Anthropic counts cache reads apart from input tokens.
    assert.deepStrictEqual(rows[10]?.usage, { inputTokens: 6500, outputTokens: 115, cachedInputTokens: 2700, costUsd: 0.023225 })
    assert.isUndefined(ClaudeHarness.exitFailure(0, null, parser))
  })

  it("maps a recorded 429 that outlasts the CLI's retries (CLAUDE_CODE_MAX_RETRIES=2): retry rows, then a rate-limit InfraFailure with the reset time", () => {
    const { parser, rows } = replay(ClaudeHarness, "claude-stream-ratelimited.jsonl")
    assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "system", "system", "error", "error", "usage"])
    assert.strictEqual(rows[1]?.text, "retrying the model request (1/2) in 1000 ms after 429 rate_limit")
    const failure = ClaudeHarness.exitFailure(1, null, parser)
    assert.strictEqual(failure?._tag, "InfraFailure")
    assert.strictEqual(failure?.reason, "the model provider is rate limiting the agent")
    assert.include(failure?.evidence, "Request rejected (429)")
    // "Please try again in 1s", read at the result's line (the 5th, at 1004).
    assert.strictEqual(failure?._tag === "InfraFailure" ? failure.retryAt : 0, 1004 + 1000)
  })

  it("counts the CLI's own retries of a failed request as stall lines, each a readable row", () => {
    const retry = '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":1241.41,"error_status":429,"error":"rate_limit"}'
    assert.isTrue(ClaudeHarness.isStallLine(retry))
    const { parser, rows } = replayLines(ClaudeHarness, [retry])
    assert.deepStrictEqual(rows.map((r) => r.text), ["retrying the model request (1/10) in 1241 ms after 429 rate_limit"])
    assert.strictEqual(parser.lastError?.(), "429 rate_limit")
    assert.isFalse(ClaudeHarness.isStallLine('{"type":"assistant","message":{"content":[{"type":"text","text":"api_retry"}]}}'))
  })

  it("maps the documented stream to transcript rows, resolving tool names of results", () => {
    const { parser, rows } = replay(ClaudeHarness, "claude-stream.handwritten.jsonl")
    assert.deepStrictEqual(
      rows.map((r) => `${r.kind}:${r.tool ?? ""}`),
      [
        "system:",
        "assistant:",
        "tool_call:Bash",
        "tool_result:Bash",
        "system:",
        "tool_call:Read",
        "tool_result:Read",
        "assistant:",
        "usage:"
      ]
    )
    assert.include(rows[0]?.text, "claude-sonnet-4-5-20250929")
    assert.include(rows[2]?.text, "echo hello > hello.txt")
    assert.strictEqual(rows[3]?.text, "done")
    assert.strictEqual(rows[4]?.text, "thinking: Check the commit landed.")
    assert.strictEqual(rows[5]?.text, '{"file_path":"/home/dev/worktree/missing.txt"}')
    assert.strictEqual(rows[6]?.text, "error: <tool_use_error>File does not exist.</tool_use_error>")
    assert.deepStrictEqual(rows[8]?.usage, {
      inputTokens: 12 + 1500 + 35550,
      outputTokens: 175,
      cachedInputTokens: 35550,
      costUsd: 0.0213
    })
    assert.isUndefined(parser.failure())
    assert.isUndefined(ClaudeHarness.exitFailure(0, null, parser))
  })

  it("maps an API 429 result to a rate-limit InfraFailure, not to an assistant message", () => {
    const { parser, rows } = replay(ClaudeHarness, "claude-stream-ratelimited.handwritten.jsonl")
    assert.deepStrictEqual(rows.map((r) => r.kind), ["system", "error", "error", "usage"])
    const failure = ClaudeHarness.exitFailure(1, null, parser)
    assert.strictEqual(failure?._tag, "InfraFailure")
    assert.include(failure?.evidence, "rate_limit_error")
  })

  it("reads the reset time of a usage limit", () => {
    const { parser } = replayLines(ClaudeHarness, [
      '{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|1796040000","total_cost_usd":0,"usage":{}}'
    ])
    const failure = parser.failure()
    assert.strictEqual(failure?._tag === "InfraFailure" ? failure.retryAt : 0, 1796040000 * 1000)
  })

  it("blames the agent for running out of turns or failing to log in", () => {
    const turns = replayLines(ClaudeHarness, [
      '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":30,"total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":2}}'
    ])
    assert.strictEqual(turns.parser.failure()?._tag, "AgentFailure")
    assert.include(turns.parser.failure()?.reason, "turns")
    assert.deepStrictEqual(turns.rows.at(-1)?.usage, { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0, costUsd: 0.5 })
    const login = replayLines(ClaudeHarness, [
      '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","usage":{}}'
    ])
    assert.strictEqual(login.parser.failure()?._tag, "AgentFailure")
    assert.include(login.parser.failure()?.reason, "authenticate")
  })

  it("a replayed operator message is its acknowledgment; a result leaves the session idle until a message is taken", () => {
    const parser = ClaudeHarness.parser()
    const op = "6f1c2a0e-5d4b-4c3a-9b2e-1f0a9c8d7e6b"
    const replay = (uuid: string, text: string) =>
      JSON.stringify({ type: "user", uuid, isReplay: true, message: { role: "user", content: [{ type: "text", text }] }, session_id: "s" })
    assert.deepStrictEqual(parser.line(replay(CLAUDE_TASK_UUID, "do it"), 1), [])
    assert.isFalse(parser.idle?.())
    parser.line(JSON.stringify({ type: "result", subtype: "success", is_error: false, usage: {} }), 2)
    assert.isTrue(parser.idle?.())
    const rows = parser.line(replay(op, "use the fixture"), 3)
    assert.deepStrictEqual(rows.map((r) => [r.kind, r.text]), [["system", "claude took the operator's message"]])
    assert.isFalse(parser.idle?.(), "a message taken after the result starts a new turn")
    assert.deepStrictEqual([...(parser.answered?.() ?? [])], [CLAUDE_TASK_UUID, op])
    assert.strictEqual(claudeChannel._tag === "Stdin" ? claudeChannel.message("hi", op, { attemptDir: "/a" }) : "", claudeUserLine("hi", op))
    const answer = claudeChannel._tag === "Stdin" ? claudeChannel.answer(replay(op, "use the fixture"), op) : undefined
    assert.strictEqual(answer?._tag, "Accepted")
    assert.isUndefined(claudeChannel._tag === "Stdin" ? claudeChannel.answer(replay(op, "x").replace('"isReplay":true,', ""), op) : undefined)
  })
})
