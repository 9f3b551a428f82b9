import { assert, describe, it } from "@effect/vitest"
import { PiHarness } from "../../src/harness/PiHarness"
import { fixtureLines, replay, replayLines } from "./replay"

const input = { prompt: "@file -x", model: undefined, workdir: "/w/tree", attemptDir: "/w/attempt", command: undefined }

const assistantEnd = (stopReason: string, errorMessage?: string) =>
  JSON.stringify({
    type: "message_end",
    message: {
      role: "assistant",
      content: [],
      usage: { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } },
      stopReason,
      ...(errorMessage === undefined ? {} : { errorMessage })
    }
  })

describe("PiHarness", () => {
  it("starts pi in RPC mode with the task as a prompt command on stdin and its agent dir in the Attempt's folder", () => {
    const inv = PiHarness.invocation({ ...input, model: "sim/sim-model" })
    assert.deepStrictEqual(inv.argv, ["pi", "--mode", "rpc", "--no-session", "--model", "sim/sim-model"])
    const [task, state, ...rest] = (inv.stdin ?? "").split("\n")
    assert.deepStrictEqual(JSON.parse(task ?? ""), { id: "usine-task", type: "prompt", message: "@file -x" })
    assert.deepStrictEqual(JSON.parse(state ?? ""), { id: "usine-state", type: "get_state" }, "its answer names the session")
    assert.deepStrictEqual(rest, [""], "RPC lines")
    assert.strictEqual(PiHarness.channel?._tag, "Stdin")
    assert.strictEqual(inv.env["PI_CODING_AGENT_DIR"], "/w/attempt/pi-agent")
    assert.strictEqual(inv.env["PI_OFFLINE"], "1")
    assert.deepStrictEqual(Object.keys(inv.files), ["pi-agent/settings.json"])
  })

  it("maps the recorded stream without duplicates from partial updates", () => {
    const { parser, rows } = replay(PiHarness, "pi-stream.jsonl")
    assert.deepStrictEqual(
      rows.map((r) => `${r.kind}:${r.tool ?? ""}`),
      ["system:", "tool_call:bash", "usage:", "tool_result:bash", "assistant:", "usage:"]
    )
    assert.include(rows[0]?.text, "01a22bc3-edbf-774f-84c4-809511611fea")
    assert.include(rows[1]?.text, "echo hello > hello.txt")
    assert.strictEqual(rows[3]?.text, "done\n")
    assert.strictEqual(rows[4]?.text, "Created hello.txt and committed it.")
    assert.deepStrictEqual(rows[2]?.usage, { inputTokens: 900, outputTokens: 30, cachedInputTokens: 0, costUsd: 0 })
    assert.deepStrictEqual(rows[5]?.usage, { inputTokens: 1800, outputTokens: 60, cachedInputTokens: 0, costUsd: 0 })
    assert.isUndefined(PiHarness.exitFailure(0, null, parser))
  })

  it("prints nothing while it waits inside its own retry: the kill is an InfraFailure", () => {
    const lines = fixtureLines("pi-stream-ratelimited.jsonl")
    const { parser, rows } = replayLines(PiHarness, lines)
    assert.deepStrictEqual(rows.map((r) => r.kind), ["system"])
    assert.isFalse(lines.some((l) => PiHarness.isStallLine(l)))
    assert.strictEqual(PiHarness.exitFailure(null, "SIGTERM", parser)?._tag, "InfraFailure")
  })

  it("an idle probe's answer is no progress: a Pi that says it is busy while it runs nothing meets the stall limit", () => {
    const busy = '{"id":"usine-idle-1-4","type":"response","command":"get_state","success":true,"data":{"isStreaming":false,"isCompacting":false,"pendingMessageCount":1}}'
    assert.isTrue(PiHarness.isStallLine(busy))
    assert.isFalse(PiHarness.isStallLine('{"id":"3f1c0e55-9b7e-4c1e-8d7a-0c2f1a9e4b21","type":"response","command":"prompt","success":true}'))
    assert.isFalse(PiHarness.isStallLine('{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"usine-idle- is a word"}]}}'))
  })

  it("maps a failed model request, its reported retries and their end", () => {
    const failed = assistantEnd("error", "429 status code (no body)")
    const retry = '{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"429 status code (no body)"}'
    const gaveUp = '{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"429 status code (no body)"}'
    const { parser, rows } = replayLines(PiHarness, [failed])
    assert.strictEqual(parser.failure()?._tag, "InfraFailure")
    assert.deepStrictEqual(rows.map((r) => r.kind), ["usage", "error"])
    parser.line(retry, 2000)
    assert.isTrue(PiHarness.isStallLine(retry))
    assert.isUndefined(parser.failure())
    parser.line(gaveUp, 3000)
    const failure = PiHarness.exitFailure(0, null, parser)
    assert.strictEqual(failure?._tag, "InfraFailure")
    assert.include(failure?.evidence, "429")
  })

  it("clears a failure once a later request succeeds, and blames the agent for other errors", () => {
    const recovered = replayLines(PiHarness, [assistantEnd("error", "fetch failed"), assistantEnd("stop")])
    assert.isUndefined(recovered.parser.failure())
    const other = replayLines(PiHarness, [assistantEnd("error", "context length exceeded by the prompt")])
    assert.strictEqual(PiHarness.exitFailure(1, null, other.parser)?._tag, "AgentFailure")
    const aborted = replayLines(PiHarness, [assistantEnd("aborted")])
    assert.strictEqual(aborted.parser.failure()?._tag, "InfraFailure")
  })

  it("is idle once the get_state probe fed after a run's end is answered settled with nothing since; a retry, a taken message or a compaction that goes on is not", () => {
    const parser = PiHarness.parser()
    const feed = (...events: ReadonlyArray<Record<string, unknown>>) => events.flatMap((e) => parser.line(JSON.stringify(e), 1))
    const settled = { isStreaming: false, isCompacting: false, pendingMessageCount: 0 }
    const answer = (id: string, data: Record<string, unknown> = settled) => feed({ type: "response", id, command: "get_state", success: true, data })
    assert.isFalse(parser.idle?.())
    assert.isUndefined(parser.idleProbe?.())
    const header = feed({ type: "response", id: "usine-state", command: "get_state", success: true, data: { sessionId: "s-1" } })
    assert.deepStrictEqual(header.map((r) => r.text), ["pi session s-1"])
    feed({ type: "response", id: "usine-task", command: "prompt", success: true }, { type: "agent_start" })
    assert.isFalse(parser.idle?.())
    assert.isUndefined(parser.idleProbe?.(), "no probe while pi works")

    // agent_end alone is a candidate: Pi may still print its retry in a later write.
    feed({ type: "agent_end", messages: [] })
    assert.isFalse(parser.idle?.(), "agent_end alone is not idle")
    assert.deepStrictEqual(parser.idleProbe?.(), { id: "usine-idle-1-0", line: '{"id":"usine-idle-1-0","type":"get_state"}\n' })
    feed({ type: "auto_retry_start", attempt: 1, maxAttempts: 2, delayMs: 500, errorMessage: "429" })
    assert.isUndefined(parser.idleProbe?.(), "a retry goes on after agent_end")
    assert.deepStrictEqual(answer("usine-idle-1-0"), [], "a probe's answer is no transcript row")
    assert.isFalse(parser.idle?.(), "the probe's answer after the retry's announcement does not make it idle")

    feed({ type: "agent_start" }, { type: "agent_end", messages: [] })
    assert.strictEqual(parser.idleProbe?.()?.id, "usine-idle-2-0")
    answer("usine-idle-2-0", { ...settled, isStreaming: true })
    assert.isFalse(parser.idle?.(), "pi says it is still busy")
    assert.strictEqual(parser.idleProbe?.()?.id, "usine-idle-2-1", "so it is asked again")
    answer("usine-idle-2-0")
    assert.isFalse(parser.idle?.(), "a stale probe's answer settles nothing")
    answer("usine-idle-2-1")
    assert.isTrue(parser.idle?.())
    assert.isUndefined(parser.idleProbe?.())

    feed({ type: "compaction_start", reason: "threshold" })
    assert.isFalse(parser.idle?.())
    assert.isUndefined(parser.idleProbe?.())
    feed({ type: "compaction_end", reason: "threshold", aborted: false, willRetry: false })
    assert.strictEqual(parser.idleProbe?.()?.id, "usine-idle-3-0", "a compaction after the run ends it again")
    answer("usine-idle-3-0")
    assert.isTrue(parser.idle?.())

    const rows = feed({ type: "response", id: "usine-op-1", command: "prompt", success: true })
    assert.isFalse(parser.idle?.(), "a message taken while idle starts a new run")
    assert.isUndefined(parser.idleProbe?.())
    assert.deepStrictEqual(rows.map((r) => [r.kind, r.text]), [["system", "pi accepted the operator's message"]])
    const refused = feed({ type: "response", id: "usine-op-2", command: "prompt", success: false, error: "no" })
    assert.deepStrictEqual(refused.map((r) => r.text), ["pi refused the operator's message: no"])
    assert.deepStrictEqual([...(parser.answered?.() ?? [])], [
      "usine-task", "usine-idle-1-0", "usine-idle-2-0", "usine-idle-2-1", "usine-idle-3-0", "usine-op-1", "usine-op-2"
    ])
  })

  it("retries given up are pi's last word: idle at once, with no probe", () => {
    const parser = PiHarness.parser()
    const feed = (...events: ReadonlyArray<Record<string, unknown>>) => events.forEach((e) => parser.line(JSON.stringify(e), 1))
    feed({ type: "agent_start" }, { type: "agent_end", messages: [] })
    feed({ type: "auto_retry_end", success: false, attempt: 1, finalError: "429 Too Many Requests" })
    assert.isTrue(parser.idle?.())
    assert.isUndefined(parser.idleProbe?.())
  })

  it("a refused task is the agent's failure, and leaves pi idle so its input can be closed", () => {
    const parser = PiHarness.parser()
    const rows = parser.line(JSON.stringify({ type: "response", id: "usine-task", command: "prompt", success: false, error: "No API key" }), 1)
    assert.deepStrictEqual(rows.map((r) => r.kind), ["error"])
    assert.strictEqual(parser.idleProbe?.()?.id, "usine-idle-1-0")
    parser.line(JSON.stringify({ type: "response", id: "usine-idle-1-0", command: "get_state", success: true, data: { isStreaming: false, isCompacting: false, pendingMessageCount: 0 } }), 1)
    assert.isTrue(parser.idle?.())
    assert.strictEqual(PiHarness.exitFailure(0, null, parser)?._tag, "AgentFailure")
  })
})
