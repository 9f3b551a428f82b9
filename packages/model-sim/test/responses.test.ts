import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModelSim } from "./support/ModelSim"
import { payloads, post } from "./post"

const codexTools = [{ type: "function", name: "exec_command", parameters: {} }, { type: "function", name: "write_stdin", parameters: {} }]

const request = (thread: string, input: ReadonlyArray<unknown> = []) => ({
  model: "sim-model",
  stream: true,
  prompt_cache_key: thread,
  tools: codexTools,
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "fix the bug" }] }, ...input]
})

const script = {
  turns: [
    { run: "npm test", usage: { input: 1000, output: 40, cached: 600 } },
    { write: "notes/it's.md", content: "a 'quoted'\nline\n" },
    { say: "All tests pass." }
  ]
}

describe("ModelSim, OpenAI Responses API", () => {
  it.scoped("streams a function call turn as Codex reads it: created, item added, argument deltas, item done, completed with usage", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const res = yield* post(`${sim.baseUrl}/responses`, request("t1"), { authorization: "Bearer sim-key" })
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.headers.get("content-type"), "text/event-stream")
      assert.isUndefined(res.broken)
      const events = payloads(res)
      assert.deepStrictEqual(
        events.map((e) => e["type"]),
        [
          "response.created",
          "response.in_progress",
          "response.output_item.added",
          "response.function_call_arguments.delta",
          "response.function_call_arguments.delta",
          "response.function_call_arguments.done",
          "response.output_item.done",
          "response.completed"
        ]
      )
      // The SSE event name repeats the payload type, and sequence numbers count up from 0.
      assert.deepStrictEqual(res.events.map((e) => e.event), events.map((e) => e["type"]))
      assert.deepStrictEqual(events.map((e) => e["sequence_number"]), [0, 1, 2, 3, 4, 5, 6, 7])
      const deltas = events.filter((e) => e["type"] === "response.function_call_arguments.delta").map((e) => e["delta"]).join("")
      const item = events[6]?.["item"]
      assert.deepStrictEqual(item, { id: "fc_1", type: "function_call", call_id: "call_1", name: "exec_command", status: "completed", arguments: deltas })
      assert.deepStrictEqual(JSON.parse(deltas), { cmd: "npm test", yield_time_ms: 300_000 })
      const completed = events[7]?.["response"]
      assert.strictEqual(completed["status"], "completed")
      assert.deepStrictEqual(completed["output"], [item])
      assert.deepStrictEqual(completed["usage"], {
        input_tokens: 1000,
        input_tokens_details: { cached_tokens: 600 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 1040
      })
      const [recorded] = yield* sim.requests()
      assert.strictEqual(recorded?.authorization, "Bearer sim-key")
      assert.deepStrictEqual(recorded?.tools, ["exec_command", "write_stdin"])
      assert.strictEqual(recorded?.conversation, "t1")
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("advances one turn per request of a conversation, records the tool output carried back, and ends with a message", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      yield* post(`${sim.baseUrl}/responses`, request("t1"))
      // Another conversation starts its own script from the first turn.
      const other = payloads(yield* post(`${sim.baseUrl}/responses`, request("t2")))
      assert.strictEqual(other[6]?.["item"]["name"], "exec_command")

      const output = [{ type: "function_call_output", call_id: "call_1", output: "Tests: 3 passed" }]
      const write = payloads(yield* post(`${sim.baseUrl}/responses`, request("t1", output)))
      const cmd: string = JSON.parse(write[6]?.["item"]["arguments"])["cmd"]
      // Codex has no file tool: a write is a shell command that reproduces the content exactly.
      assert.strictEqual(cmd, `mkdir -p 'notes' && printf '%s' 'a '\\''quoted'\\''\nline\n' > 'notes/it'\\''s.md'`)

      const say = payloads(yield* post(`${sim.baseUrl}/responses`, request("t1")))
      assert.deepStrictEqual(
        say.map((e) => e["type"]),
        [
          "response.created",
          "response.in_progress",
          "response.output_item.added",
          "response.content_part.added",
          "response.output_text.delta",
          "response.output_text.delta",
          "response.output_text.done",
          "response.content_part.done",
          "response.output_item.done",
          "response.completed"
        ]
      )
      const text = say.filter((e) => e["type"] === "response.output_text.delta").map((e) => e["delta"]).join("")
      assert.strictEqual(text, "All tests pass.")
      assert.deepStrictEqual(say[8]?.["item"]["content"], [{ type: "output_text", text: "All tests pass.", annotations: [] }])
      assert.deepStrictEqual(say[9]?.["response"]["usage"]["input_tokens"], 900)

      // Past the script, the model closes the session rather than leaving the CLI waiting.
      const extra = payloads(yield* post(`${sim.baseUrl}/responses`, request("t1")))
      assert.strictEqual(extra[8]?.["item"]["type"], "message")

      const requests = yield* sim.requests()
      assert.deepStrictEqual(requests.map((r) => `${r.conversation}#${r.index}`), ["t1#0", "t2#0", "t1#1", "t1#2", "t1#3"])
      assert.strictEqual(requests[2]?.lastToolOutput, "Tests: 3 passed")
      assert.isUndefined(requests[0]?.lastToolOutput)
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("lists its model and answers a request that does not stream with a 400", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const models = yield* Effect.promise(() => fetch(`${sim.baseUrl}/models`).then((r) => r.json()))
      assert.deepStrictEqual(models, { object: "list", data: [{ id: "scripted", object: "model", created: 0, owned_by: "usine" }] })
      const res = yield* post(`${sim.baseUrl}/responses`, { ...request("t1"), stream: false })
      assert.strictEqual(res.status, 400)
      const missing = yield* post(`${sim.url}/v2/other`, {})
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual((yield* sim.requests()).map((r) => `${r.method} ${r.path}`), ["GET /v1/models", "POST /v1/responses", "POST /v2/other"])
    }).pipe(Effect.provide(ModelSim.layer({ ...script, model: "scripted" })))
  )
})
