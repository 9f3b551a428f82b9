import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModelSim } from "./support/ModelSim"
import { payloads, post } from "./post"

const piTools = ["read", "bash", "edit", "write"].map((name) => ({ type: "function", function: { name, parameters: {} } }))

const request = (first: string, messages: ReadonlyArray<unknown> = [], includeUsage = true) => ({
  model: "sim-model",
  stream: true,
  ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  tools: piTools,
  messages: [{ role: "system", content: "You are pi." }, { role: "user", content: [{ type: "text", text: first }] }, ...messages]
})

const script = {
  turns: [
    { run: "node --test", usage: { input: 1200, output: 25, cached: 1000 } },
    { write: "src/a.txt", content: "one\n" },
    { edit: "src/a.txt", oldText: "one", newText: "two" },
    { say: "Done: the tests pass." }
  ]
}

const toolCallOf = (chunks: ReadonlyArray<Record<string, any>>) => {
  const deltas = chunks.flatMap((c) => c["choices"]?.[0]?.["delta"]?.["tool_calls"] ?? [])
  return {
    id: deltas[0]?.["id"],
    name: deltas[0]?.["function"]?.["name"],
    arguments: JSON.parse(deltas.map((d: Record<string, any>) => d["function"]["arguments"]).join(""))
  }
}

describe("ModelSim, OpenAI chat completions", () => {
  it.scoped("streams a tool call as chunks: role, tool_calls deltas, finish_reason, a usage chunk, then [DONE]", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const res = yield* post(`${sim.baseUrl}/chat/completions`, request("fix it"))
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.events[res.events.length - 1]?.data, "[DONE]")
      const chunks = payloads(res)
      assert.isTrue(chunks.every((c) => c["object"] === "chat.completion.chunk" && c["id"] === "chatcmpl-1"))
      assert.deepStrictEqual(chunks[0]?.["choices"][0]["delta"], { role: "assistant", content: "" })
      assert.deepStrictEqual(toolCallOf(chunks), { id: "call_1", name: "bash", arguments: { command: "node --test" } })
      assert.deepStrictEqual(chunks.map((c) => c["choices"][0]?.["finish_reason"] ?? null), [null, null, null, "tool_calls", null])
      assert.deepStrictEqual(chunks[4], {
        ...chunks[4],
        choices: [],
        usage: { prompt_tokens: 1200, completion_tokens: 25, total_tokens: 1225, prompt_tokens_details: { cached_tokens: 1000 } }
      })
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("uses Pi's own write and edit tools, sends usage only when asked, and ends with text", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const url = `${sim.baseUrl}/chat/completions`
      yield* post(url, request("fix it"))
      const bashResult = [{ role: "tool", tool_call_id: "call_1", content: "ok 1 - adds\n# pass 1" }]
      const write = payloads(yield* post(url, request("fix it", bashResult)))
      assert.deepStrictEqual(toolCallOf(write), { id: "call_2", name: "write", arguments: { path: "src/a.txt", content: "one\n" } })
      const edit = payloads(yield* post(url, request("fix it", [], false)))
      assert.deepStrictEqual(toolCallOf(edit).arguments, { path: "src/a.txt", edits: [{ oldText: "one", newText: "two" }] })
      assert.isFalse(edit.some((c) => "usage" in c))
      const say = payloads(yield* post(url, request("fix it")))
      const text = say.map((c) => c["choices"][0]?.["delta"]?.["content"] ?? "").join("")
      assert.strictEqual(text, "Done: the tests pass.")
      assert.strictEqual(say[say.length - 2]?.["choices"][0]["finish_reason"], "stop")

      const requests = yield* sim.requests()
      // Pi names no conversation: the first user message does, so all four requests are one session.
      assert.deepStrictEqual(requests.map((r) => r.index), [0, 1, 2, 3])
      assert.strictEqual(new Set(requests.map((r) => r.conversation)).size, 1)
      assert.strictEqual(requests[1]?.lastToolOutput, "ok 1 - adds\n# pass 1")
      assert.deepStrictEqual(requests[0]?.tools, ["read", "bash", "edit", "write"])
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )

  it.scoped("a client without file tools gets writes and edits as commands for its shell tool", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const bashOnly = { ...request("x"), tools: [piTools[1]] }
      const url = `${sim.baseUrl}/chat/completions`
      yield* post(url, bashOnly)
      const write = toolCallOf(payloads(yield* post(url, bashOnly)))
      assert.deepStrictEqual(write, { id: "call_2", name: "bash", arguments: { command: "mkdir -p 'src' && printf '%s' 'one\n' > 'src/a.txt'" } })
      const edit = toolCallOf(payloads(yield* post(url, bashOnly)))
      assert.strictEqual(edit.name, "bash")
      assert.match(edit.arguments.command, /^node -e '.*' 'src\/a\.txt' 'one' 'two'$/s)
    }).pipe(Effect.provide(ModelSim.layer(script)))
  )
})
