import { assert, describe, it } from "@effect/vitest"
import { codexChannel, codexThreadId } from "../../src/harness/codexAppServer"
import { CodexHarness } from "../../src/harness/CodexHarness"
import { fixtureLines, replay, replayLines } from "./replay"

const M1 = "11111111-1111-4111-8111-111111111111"
const M2 = "22222222-2222-4222-8222-222222222222"

describe("codex app-server stream", () => {
  it("maps the recorded stream: the thread, tool calls, answers to operator messages, usage per turn; idle after the last turn", () => {
    const lines = fixtureLines("codex-app-server-stream.jsonl")
    const { parser, rows } = replay(CodexHarness, "codex-app-server-stream.jsonl")
    assert.deepStrictEqual(
      rows.map((r) => r.kind),
      ["system", "system", "tool_call", "system", "tool_result", "tool_call", "tool_result", "assistant", "usage", "system", "system", "assistant", "usage"]
    )
    assert.strictEqual(rows[0]?.text, "codex thread 286acdcd-cc8b-47ac-a0c4-16ad4fe44da7 started")
    assert.include(rows[2]?.text, "sleep 2")
    assert.strictEqual(rows[3]?.text, "codex took the operator's message")
    assert.strictEqual(rows[4]?.text, "slept\n")
    assert.strictEqual(rows[7]?.text, "done now")
    assert.deepStrictEqual(rows[12]?.usage, { inputTokens: 3600, outputTokens: 120, cachedInputTokens: 0 })
    assert.deepStrictEqual([...(parser.answered?.() ?? [])], [M1, M2])
    assert.isTrue(parser.idle?.())
    assert.isUndefined(CodexHarness.exitFailure(0, null, parser))

    // Idle only between turns: after the first turn's end, not once the second message was answered.
    const firstEnd = lines.findIndex((l) => l.includes('"method":"turn/completed"'))
    const answer2 = lines.findIndex((l) => l.startsWith(`{"id":"${M2}"`))
    assert.isTrue(replayLines(CodexHarness, lines.slice(0, firstEnd + 1)).parser.idle?.())
    assert.isFalse(replayLines(CodexHarness, lines.slice(0, firstEnd)).parser.idle?.())
    assert.isFalse(replayLines(CodexHarness, lines.slice(0, answer2 + 1)).parser.idle?.())
  })

  it("an operator message is a turn/start on the session's thread, its answer the acknowledgment or the refusal", () => {
    const channel = codexChannel
    assert.strictEqual(channel._tag, "Stdin")
    if (channel._tag !== "Stdin") return
    const line = JSON.parse(channel.message("use the fixture", M1, { attemptDir: "/w/attempt" }))
    assert.deepStrictEqual(line, {
      id: M1,
      method: "turn/start",
      params: { threadId: codexThreadId("/w/attempt"), clientUserMessageId: M1, input: [{ type: "text", text: "use the fixture", text_elements: [] }] }
    })
    const stream = fixtureLines("codex-app-server-stream.jsonl")
    const answer = stream.map((l) => channel.answer(l, M1)).filter((a) => a !== undefined)
    // The response only says Codex took the request: queued until its user-message item shows the text (issue 32).
    assert.deepStrictEqual(answer.map((a) => a._tag), ["Queued"])
    const answeredAt = stream.findIndex((l) => channel.answer(l, M1) !== undefined)
    const takenAt = stream.findIndex((l) => channel.taken?.shows(l, "Operator: keep it short.") === true)
    assert.isAbove(takenAt, answeredAt, "the user-message item, after the answer")
    assert.include(stream[takenAt], channel.taken?.marker ?? "no marker")
    assert.isFalse(stream.some((l) => channel.taken?.shows(l, "Operator: something else") === true))
    // The user message item names the id too (clientId); only the response answers.
    const refused = `{"error":{"code":-32600,"message":"thread not found: t"},"id":"${M1}"}`
    assert.deepStrictEqual(channel.answer(refused, M1), { _tag: "Refused", reason: "codex refused it: thread not found: t" })
    const { rows, parser } = replayLines(CodexHarness, [refused])
    assert.strictEqual(rows[0]?.text, "codex refused the operator's message: thread not found: t")
    assert.isTrue(parser.answered?.().has(M1))
  })

  it("a failed turn is the provider's failure; a retrying error is a stall; a refused task ends the session as the agent's failure", () => {
    const failed = JSON.stringify({ method: "turn/completed", params: { threadId: "t", turn: { id: "u", status: "failed", error: { message: "exceeded retry limit, last status: 429 Too Many Requests" }, items: [] } } })
    const { parser, rows } = replayLines(CodexHarness, [failed])
    assert.deepStrictEqual(rows.map((r) => r.kind), ["error", "usage"])
    assert.strictEqual(parser.failure()?._tag, "InfraFailure")
    assert.include(parser.failure()?.reason, "rate limiting")
    const retry = JSON.stringify({ method: "error", params: { error: { message: "Reconnecting... 2/5" }, willRetry: true, threadId: "t", turnId: "u" } })
    assert.isTrue(CodexHarness.isStallLine(retry))
    assert.isFalse(CodexHarness.isStallLine(JSON.stringify({ method: "item/completed", params: { item: { type: "agentMessage", id: "m", text: "willRetry" } } })))
    assert.deepStrictEqual(replayLines(CodexHarness, [retry, retry]).rows.map((r) => r.text), ["Reconnecting... 2/5"])
    const task = replayLines(CodexHarness, ['{"error":{"code":-32600,"message":"thread not found: t"},"id":"usine-task"}'])
    assert.strictEqual(task.parser.failure()?._tag, "AgentFailure")
    assert.isTrue(task.parser.idle?.())
  })
})
