import { assert, describe, it } from "@effect/vitest"
import { ClaudeHarness } from "../../src/harness/ClaudeHarness"
import { replay, replayLines } from "./replay"

const input = { prompt: "do it", model: undefined, workdir: "/w/tree", attemptDir: "/w/attempt", command: undefined }

describe("ClaudeHarness", () => {
  it("starts claude -p with stream-json output and the prompt on stdin", () => {
    const inv = ClaudeHarness.invocation({ ...input, model: "opus" })
    assert.deepStrictEqual(inv.argv, [
      "claude",
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--dangerously-skip-permissions",
      "--model",
      "opus"
    ])
    assert.strictEqual(inv.stdin, "do it")
    assert.deepStrictEqual(ClaudeHarness.invocation({ ...input, command: ["/x/claude"] }).argv[0], "/x/claude")
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
})
