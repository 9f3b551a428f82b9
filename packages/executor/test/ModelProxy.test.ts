import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Queue } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { startModelSim } from "@usine/model-sim/startModelSim"
import { startModelProxy } from "../src/ModelProxy"
import { makeUsageReader } from "../src/ModelProxy/usageOfResponse"

const KEY = "sk-provider-7f3e9a01c2"
const SCRIPT: ModelScript = { turns: [{ say: "one", usage: { input: 1200, output: 40, cached: 300 } }, { say: "two" }] }

const scopedSim = (script: ModelScript) =>
  Effect.acquireRelease(Effect.promise(() => startModelSim(script)), (sim) => Effect.promise(() => sim.close()))

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
    return { status: res.status, text: await res.text() }
  })

const user = (text: string) => ({ role: "user", content: text })

describe("ModelProxy", () => {
  it.scoped("chat completions, streamed: asks for usage though the CLI did not, adds the key, meters the usage chunk", () =>
    Effect.gen(function* () {
      const sim = yield* scopedSim(SCRIPT)
      const proxy = yield* startModelProxy({ providerBaseUrl: sim.baseUrl, apiKey: KEY })
      const answer = yield* post(`${proxy.baseUrl}/chat/completions`, { model: "m", stream: true, messages: [user("hi")] }, {
        authorization: "Bearer forged-by-the-agent"
      })
      assert.strictEqual(answer.status, 200)
      assert.include(answer.text, `"prompt_tokens":1200`, "the CLI still sees the usage chunk")
      const metered = yield* Queue.take(proxy.metered)
      assert.deepStrictEqual(metered, { usage: { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 300 }, reported: true })
      assert.strictEqual(sim.requests[0]?.authorization, `Bearer ${KEY}`, "the provider's key replaces what the CLI sent")
      assert.deepStrictEqual((sim.requests[0]?.body as { stream_options?: unknown }).stream_options, { include_usage: true })
    }))

  it.scoped("OpenAI Responses, streamed: the usage of response.completed", () =>
    Effect.gen(function* () {
      const sim = yield* scopedSim(SCRIPT)
      const proxy = yield* startModelProxy({ providerBaseUrl: sim.baseUrl, apiKey: KEY })
      const answer = yield* post(`${proxy.baseUrl}/responses`, { model: "m", stream: true, input: [user("hi")] })
      assert.strictEqual(answer.status, 200)
      const metered = yield* Queue.take(proxy.metered)
      assert.deepStrictEqual(metered.usage, { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 300 })
      assert.strictEqual(sim.requests[0]?.authorization, `Bearer ${KEY}`)
    }))

  it.scoped("Anthropic Messages, streamed and whole: message_start and message_delta, the key in x-api-key", () =>
    Effect.gen(function* () {
      const sim = yield* scopedSim(SCRIPT)
      const proxy = yield* startModelProxy({ providerBaseUrl: sim.baseUrl, apiKey: KEY })
      const streamed = yield* post(`${proxy.baseUrl}/messages`, { model: "m", stream: true, max_tokens: 100, messages: [user("a")] }, {
        "x-api-key": "usine-model-proxy"
      })
      assert.strictEqual(streamed.status, 200)
      const first = yield* Queue.take(proxy.metered)
      assert.strictEqual(first.usage.outputTokens, 40, "message_delta's output, not message_start's placeholder")
      assert.isTrue(first.usage.inputTokens >= 1200)
      assert.strictEqual(sim.requests[0]?.apiKey, KEY)
      assert.isUndefined(sim.requests[0]?.authorization)
      const whole = yield* post(`${proxy.baseUrl}/messages`, { model: "m", max_tokens: 100, messages: [user("b")] }, { "x-api-key": "x" })
      assert.strictEqual(whole.status, 200)
      const second = yield* Queue.take(proxy.metered)
      assert.isTrue(second.reported)
      assert.strictEqual(second.usage.outputTokens, 40)
    }))

  it.scoped("a provider that cannot be reached drops the CLI's connection, as it would without the proxy, and meters nothing", () =>
    Effect.gen(function* () {
      const proxy = yield* startModelProxy({ providerBaseUrl: "http://127.0.0.1:9/v1", apiKey: KEY })
      const answer = yield* Effect.either(Effect.tryPromise(() => fetch(`${proxy.baseUrl}/chat/completions`, { method: "POST", body: "{}" })))
      assert.isTrue(answer._tag === "Left", "the connection dropped")
      assert.isTrue(Chunk.isEmpty(yield* Queue.takeAll(proxy.metered)))
    }))

  it.scoped("a stream the provider cuts is cut for the CLI too, not ended cleanly", () =>
    Effect.gen(function* () {
      const sim = yield* scopedSim({ turns: [{ fault: "cut" }] })
      const proxy = yield* startModelProxy({ providerBaseUrl: sim.baseUrl, apiKey: KEY })
      const read = yield* Effect.either(Effect.tryPromise(async () => {
        const res = await fetch(`${proxy.baseUrl}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", stream: true, messages: [user("hi")] })
        })
        return await res.text()
      }))
      assert.isTrue(read._tag === "Left", "reading the body fails as the provider's did")
    }))
})

describe("ModelProxy without a usage to read", () => {
  it.scoped("a 2xx answer with no usage counts its request and its body at four bytes a token", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.async<http.Server>((resume) => {
          const s = http.createServer((req, res) => {
            req.resume()
            req.on("end", () => {
              res.writeHead(200, { "content-type": "application/json" }).end(`{"choices":[],"pad":"${"x".repeat(377)}"}`)
            })
          })
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) => Effect.async<void>((resume) => {
          s.close(() => resume(Effect.void))
        })
      )
      const port = (server.address() as AddressInfo).port
      const proxy = yield* startModelProxy({ providerBaseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY })
      yield* post(`${proxy.baseUrl}/chat/completions`, { messages: [user("y".repeat(357))] })
      const metered = yield* Queue.take(proxy.metered)
      assert.isFalse(metered.reported)
      assert.deepStrictEqual(metered.usage, { inputTokens: 100, outputTokens: 100, cachedInputTokens: 0 })
    }))
})

describe("makeUsageReader", () => {
  const read = (contentType: string, parts: ReadonlyArray<string>) => {
    const reader = makeUsageReader(contentType)
    for (const part of parts) reader.push(new TextEncoder().encode(part))
    return reader.end()
  }

  it("reads a usage split across chunks, and a JSON body whole", () => {
    const line = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } })}\n\n`
    const split = [line.slice(0, 10), line.slice(10, 33), line.slice(33)]
    assert.deepStrictEqual(read("text/event-stream", split).usage, { inputTokens: 7, outputTokens: 3, cachedInputTokens: 0 })
    const body = JSON.stringify({ usage: { input_tokens: 5, output_tokens: 2, input_tokens_details: { cached_tokens: 1 } } })
    assert.deepStrictEqual(read("application/json", [body]).usage, { inputTokens: 5, outputTokens: 2, cachedInputTokens: 1 })
  })

  it("clamps a provider's negative or absurd figures to zero and skips a line past its limit", () => {
    const negative = `data: ${JSON.stringify({ usage: { prompt_tokens: -5, completion_tokens: Number.MAX_VALUE } })}\n`
    assert.deepStrictEqual(read("text/event-stream", [negative]).usage, { inputTokens: 0, outputTokens: Number.MAX_VALUE, cachedInputTokens: 0 })
    const huge = `data: {"usage":{"prompt_tokens":1,"pad":"${"x".repeat(2 * 1024 * 1024)}"}}\n`
    const after = `data: ${JSON.stringify({ usage: { prompt_tokens: 9, completion_tokens: 1 } })}\n`
    const result = read("text/event-stream", [huge, after])
    assert.deepStrictEqual(result.usage, { inputTokens: 9, outputTokens: 1, cachedInputTokens: 0 })
    assert.isAbove(result.bytes, 2 * 1024 * 1024)
  })
})
