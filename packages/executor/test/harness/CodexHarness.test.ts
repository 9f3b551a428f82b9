import { assert, describe, it } from "@effect/vitest"
import { codexThreadId } from "../../src/harness/codexAppServer"
import { CodexHarness } from "../../src/harness/CodexHarness"
import { TOOL_OUTPUT_LIMIT } from "../../src/harness/truncate"
import { fixtureLines, replay, replayLines } from "./replay"

const input = {
  prompt: "create a file hello.txt",
  model: undefined,
  workdir: "/w/tree",
  attemptDir: "/w/attempt",
  command: undefined
}

describe("CodexHarness", () => {
  it("starts codex app-server with CODEX_HOME in the Attempt's folder, the thread's seed, and the task as its first turn", () => {
    const inv = CodexHarness.invocation({ ...input, model: "gpt-5" })
    assert.deepStrictEqual(inv.argv, ["codex", "app-server"])
    assert.deepStrictEqual(inv.env, { CODEX_HOME: "/w/attempt/codex-home" })
    assert.deepStrictEqual(Object.keys(inv.files), ["codex-home/config.toml", "codex-home/usine-thread.jsonl"])
    const threadId = codexThreadId("/w/attempt")
    assert.match(threadId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.notStrictEqual(codexThreadId("/w/attempt-2"), threadId)
    assert.strictEqual(JSON.parse(inv.files["codex-home/usine-thread.jsonl"] ?? "").payload.id, threadId)
    const lines = (inv.stdin ?? "").trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(lines.map((l) => l.method), ["initialize", "initialized", "thread/resume", "turn/start"])
    assert.deepInclude(lines[2].params, { threadId, path: "/w/attempt/codex-home/usine-thread.jsonl", cwd: "/w/tree", model: "gpt-5", approvalPolicy: "never", sandbox: "danger-full-access" })
    assert.deepInclude(lines[3].params, { threadId, input: [{ type: "text", text: "create a file hello.txt", text_elements: [] }] })
    const custom = CodexHarness.invocation({ ...input, command: ["/opt/codex/bin/codex", "--no-color"] })
    assert.deepStrictEqual(custom.argv, ["/opt/codex/bin/codex", "--no-color", "app-server"])
    assert.notInclude(custom.stdin ?? "", "gpt-5")
  })

  it("maps the recorded successful stream to transcript rows", () => {
    const { parser, rows } = replay(CodexHarness, "codex-stream.jsonl")
    assert.deepStrictEqual(
      rows.map((r) => r.kind),
      ["system", "error", "tool_call", "tool_result", "assistant", "usage"]
    )
    const [thread, warning, call, result, message, usage] = rows
    assert.include(thread?.text, "01a22bc4-0811-76a3-ac67-b18042da3a9a")
    assert.include(warning?.text, "Model metadata for `sim-model` not found")
    assert.strictEqual(call?.tool, "shell")
    assert.include(call?.text, "echo hello > hello.txt")
    assert.strictEqual(result?.text, "done\n")
    assert.strictEqual(message?.text, "Created hello.txt and committed it.")
    assert.deepStrictEqual(usage?.usage, { inputTokens: 2400, outputTokens: 80, cachedInputTokens: 0 })
    assert.strictEqual(usage?.at, 1006)
    assert.isUndefined(parser.failure())
    assert.isUndefined(CodexHarness.exitFailure(0, null, parser))
  })

  it("keeps usage as a running session total across turns", () => {
    const turn = '{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50}}'
    const { rows } = replayLines(CodexHarness, [...fixtureLines("codex-stream.jsonl"), turn])
    const usages = rows.filter((r) => r.kind === "usage").map((r) => r.usage)
    assert.deepStrictEqual(usages, [
      { inputTokens: 2400, outputTokens: 80, cachedInputTokens: 0 },
      { inputTokens: 3400, outputTokens: 130, cachedInputTokens: 400 }
    ])
  })

  it("maps the recorded 429 stream to a rate-limit InfraFailure", () => {
    const { parser, rows } = replay(CodexHarness, "codex-stream-ratelimited.jsonl")
    assert.deepStrictEqual(rows.filter((r) => r.kind === "error").length, 3)
    const failure = CodexHarness.exitFailure(1, null, parser)
    assert.strictEqual(failure?._tag, "InfraFailure")
    assert.include(failure?.reason, "rate limiting")
    assert.include(failure?.evidence, "429 Too Many Requests")
    assert.isUndefined(failure?._tag === "InfraFailure" ? failure.retryAt : "not infra")
  })

  it("knows when the quota resets if Codex says so", () => {
    const failed =
      '{"type":"turn.failed","error":{"message":"You\'ve hit your usage limit. Try again in 2 hours 5 minutes."}}'
    const { parser } = replayLines(CodexHarness, [failed])
    const failure = parser.failure()
    assert.strictEqual(failure?._tag, "InfraFailure")
    assert.strictEqual(failure?._tag === "InfraFailure" ? failure.retryAt : 0, 1000 + (2 * 60 + 5) * 60_000)
  })

  it("flags the recorded Reconnecting lines as a stall and keeps one row for them", () => {
    const lines = fixtureLines("codex-stream-unreachable.jsonl")
    assert.deepStrictEqual(
      lines.map((l) => CodexHarness.isStallLine(l)),
      [false, false, false, true, true, true, true]
    )
    assert.isFalse(
      CodexHarness.isStallLine('{"type":"item.completed","item":{"type":"agent_message","text":"Reconnecting... waiting for network"}}')
    )
    const { parser, rows } = replayLines(CodexHarness, lines)
    assert.strictEqual(rows.filter((r) => r.text.startsWith("Reconnecting")).length, 1)
    assert.isUndefined(parser.failure())
    const killed = CodexHarness.exitFailure(null, "SIGKILL", parser)
    assert.strictEqual(killed?._tag, "InfraFailure")
    assert.include(killed?.reason, "SIGKILL")
    assert.include(killed?.evidence, "Reconnecting... waiting for network")
  })

  it("blames the agent for a non-zero exit without a recognized cause, with its last error", () => {
    const { parser } = replayLines(CodexHarness, [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"error","message":"failed to apply patch: context mismatch"}'
    ])
    const failure = CodexHarness.exitFailure(1, null, parser)
    assert.strictEqual(failure?._tag, "AgentFailure")
    assert.include(failure?.reason, "exited with code 1")
    assert.strictEqual(failure?.evidence, "failed to apply patch: context mismatch")
  })

  it("turns an unreadable line into an error row and an unknown event into a system row", () => {
    const garbage = `{"type":"item.completed", oops ${"x".repeat(10_000)}`
    const { rows } = replayLines(CodexHarness, [garbage, "", '{"type":"thread.renamed","name":"n"}'])
    assert.deepStrictEqual(rows.map((r) => r.kind), ["error", "system"])
    assert.include(rows[0]?.text, '{"type":"item.completed", oops')
    assert.isBelow(rows[0]?.text.length ?? Infinity, 2200)
    assert.include(rows[1]?.text, "thread.renamed")
  })

  it("cuts long tool output with a marker, and maps file changes, MCP calls and plans", () => {
    const output = "y".repeat(TOOL_OUTPUT_LIMIT + 500)
    const { rows } = replayLines(CodexHarness, [
      JSON.stringify({ type: "item.completed", item: { id: "c", type: "command_execution", command: "yes", aggregated_output: output, exit_code: 2, status: "failed" } }),
      JSON.stringify({ type: "item.completed", item: { id: "f", type: "file_change", changes: [{ path: "src/a.ts", kind: "update" }, { path: "b.md", kind: "add" }], status: "completed" } }),
      JSON.stringify({ type: "item.started", item: { id: "m", type: "mcp_tool_call", server: "gh", tool: "issue", arguments: { n: 1 }, status: "in_progress" } }),
      JSON.stringify({ type: "item.completed", item: { id: "m", type: "mcp_tool_call", server: "gh", tool: "issue", arguments: { n: 1 }, error: { message: "boom" }, status: "failed" } }),
      JSON.stringify({ type: "item.started", item: { id: "p", type: "todo_list", items: [{ text: "a", completed: false }] } }),
      JSON.stringify({ type: "item.updated", item: { id: "p", type: "todo_list", items: [{ text: "a", completed: false }] } }),
      JSON.stringify({ type: "item.completed", item: { id: "p", type: "todo_list", items: [{ text: "a", completed: true }] } })
    ])
    assert.deepStrictEqual(rows.map((r) => `${r.kind}:${r.tool ?? ""}`), [
      "tool_call:shell",
      "tool_result:shell",
      "tool_call:apply_patch",
      "tool_call:gh.issue",
      "tool_result:gh.issue",
      "system:",
      "system:"
    ])
    const result = rows[1]?.text ?? ""
    assert.include(result, "…[truncated 500 chars]")
    assert.include(result, "[exit code 2]")
    assert.strictEqual(rows[2]?.text, "update src/a.ts\nadd b.md")
    assert.strictEqual(rows[3]?.text, '{"n":1}')
    assert.strictEqual(rows[4]?.text, "error: boom")
    assert.strictEqual(rows[6]?.text, "plan:\n[x] a")
  })
})
