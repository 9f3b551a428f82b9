import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModelSim } from "./support/ModelSim"
import { payloads, post } from "./post"

const claudeTools = ["Bash", "Edit", "Read", "Write"].map((name) => ({ name, description: name, input_schema: { type: "object" } }))

/** A request shaped as Claude Code sends it: its session in `metadata.user_id`, its working directory in the system prompt. */
const request = (session: string, messages: ReadonlyArray<unknown> = [], stream = true) => ({
  model: "claude-sim",
  max_tokens: 32000,
  stream,
  metadata: { user_id: JSON.stringify({ device_id: "d", account_uuid: "", session_id: session }) },
  system: [{ type: "text", text: "You are Claude Code." }, { type: "text", text: "# Environment\n - Primary working directory: /w/tree\n - Is a git repository: true" }],
  tools: claudeTools,
  messages: [{ role: "user", content: [{ type: "text", text: "fix the bug" }] }, ...messages]
})

const script = {
  turns: [
    { run: "node --test", usage: { input: 1000, output: 40, cached: 600 } },
    { edit: "src/a.js", oldText: "one", newText: "two" },
    { write: "/abs/b.txt", content: "b\n" },
    { say: "All tests pass." }
  ]
}

const toolUses = (events: ReadonlyArray<Record<string, any>>) =>
  events
    .filter((e) => e["type"] === "content_block_start")
    .map((start) => ({
      name: start["content_block"]["name"],
      input: JSON.parse(
        events
          .filter((e) => e["type"] === "content_block_delta" && e["index"] === start["index"])
          .map((e) => e["delta"]["partial_json"])
          .join("")
      )
    }))

describe("ModelSim, Anthropic Messages API", () => {
  it.scoped("streams a tool_use turn as Claude Code reads it: message_start, the block and its input_json_delta, message_delta, message_stop", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const res = yield* post(`${sim.url}/v1/messages?beta=true`, request("s1"), { "x-api-key": "sim-key" })
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.headers.get("content-type"), "text/event-stream")
      const events = payloads(res)
      assert.deepStrictEqual(events.map((e) => e["type"]), [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
      assert.deepStrictEqual(res.events.map((e) => e.event), events.map((e) => e["type"]))
      const message = events[0]?.["message"]
      assert.strictEqual(message["model"], "claude-sim")
      // Anthropic counts cache reads apart: 1000 in, 600 of them cached, are 400 + 600.
      assert.deepStrictEqual(message["usage"], { input_tokens: 400, cache_creation_input_tokens: 0, cache_read_input_tokens: 600, output_tokens: 1 })
      assert.deepStrictEqual(events[2]?.["content_block"], { type: "tool_use", id: "toolu_sim_1_0", name: "Bash", input: {} })
      assert.deepStrictEqual(toolUses(events), [{ name: "Bash", input: { command: "node --test", description: "Run a command" } }])
      assert.deepStrictEqual(events[6], { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 40 } })
      const [recorded] = yield* sim.requests()
      assert.strictEqual(recorded?.path, "/v1/messages")
      assert.strictEqual(recorded?.apiKey, "sim-key")
      assert.strictEqual(recorded?.conversation, "s1")
      assert.deepStrictEqual(recorded?.tools, ["Bash", "Edit", "Read", "Write"])
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("an edit is Read then Edit in one message, paths made absolute in the stated working directory; tool results are recorded", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      yield* post(`${sim.url}/v1/messages`, request("s1"))
      const result = [{ role: "assistant", content: [] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_sim_1_0", content: "# pass 3" }] }]
      const edit = payloads(yield* post(`${sim.url}/v1/messages`, request("s1", result)))
      assert.deepStrictEqual(toolUses(edit), [
        { name: "Read", input: { file_path: "/w/tree/src/a.js" } },
        { name: "Edit", input: { file_path: "/w/tree/src/a.js", old_string: "one", new_string: "two" } }
      ])
      const write = payloads(yield* post(`${sim.url}/v1/messages`, request("s1")))
      assert.deepStrictEqual(toolUses(write), [{ name: "Write", input: { file_path: "/abs/b.txt", content: "b\n" } }])
      const requests = yield* sim.requests()
      assert.strictEqual(requests[1]?.lastToolOutput, "# pass 3")
      assert.deepStrictEqual(requests.map((r) => `${r.conversation}#${r.index}`), ["s1#0", "s1#1", "s1#2"])
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("answers a request that does not stream with the whole message, a text turn with end_turn", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const res = yield* post(`${sim.url}/v1/messages`, request("s2", [], false))
      assert.strictEqual(res.status, 200)
      const body = JSON.parse(res.body)
      assert.strictEqual(body["type"], "message")
      assert.strictEqual(body["stop_reason"], "tool_use")
      assert.deepStrictEqual(body["content"], [
        { type: "tool_use", id: "toolu_sim_1_0", name: "Bash", input: { command: "node --test", description: "Run a command" } }
      ])
      // The script has one turn: past it, the model ends the session with a text.
      const text = JSON.parse((yield* post(`${sim.url}/v1/messages`, request("s2", [], false))).body)
      assert.deepStrictEqual(text["content"], [{ type: "text", text: "(the scripted model has no more turns)" }])
      assert.strictEqual(text["stop_reason"], "end_turn")
      assert.deepStrictEqual(text["usage"], { input_tokens: 900, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 30 })
    }).pipe(Effect.provide(ModelSim.layer({ turns: [{ run: "node --test" }] })))
  )

  it.scoped("answers the CLI's other calls: HEAD /, count_tokens; faults in Anthropic's error shape", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const head = yield* Effect.promise(() => fetch(`${sim.url}/`, { method: "HEAD" }))
      assert.strictEqual(head.status, 200)
      const count = yield* post(`${sim.url}/v1/messages/count_tokens`, { model: "m", messages: [{ role: "user", content: "12345678" }] })
      assert.isAbove(JSON.parse(count.body)["input_tokens"], 0)
      const limited = yield* post(`${sim.url}/v1/messages`, request("s1"))
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.headers.get("retry-after"), "7")
      assert.deepStrictEqual(JSON.parse(limited.body), {
        type: "error",
        error: { type: "rate_limit_error", message: "Rate limit reached for sim-model. Please try again in 7s." }
      })
      const failed = yield* post(`${sim.url}/v1/messages`, request("s1"))
      assert.strictEqual(failed.status, 500)
      assert.strictEqual(JSON.parse(failed.body)["error"]["type"], "api_error")
      const cut = yield* post(`${sim.url}/v1/messages`, request("s1"))
      assert.isDefined(cut.broken)
      assert.deepStrictEqual(payloads(cut).map((e) => e["type"]), ["message_start", "ping", "content_block_start", "content_block_delta"])
      assert.deepStrictEqual((yield* sim.requests()).map((r) => `${r.method} ${r.path}`), [
        "HEAD /",
        "POST /v1/messages/count_tokens",
        "POST /v1/messages",
        "POST /v1/messages",
        "POST /v1/messages"
      ])
    }).pipe(Effect.provide(ModelSim.layer({ turns: [{ fault: "429", retryAfter: 7 }, { fault: "500" }, { fault: "cut" }] })))
  )
})
