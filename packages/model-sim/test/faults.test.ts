import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { ModelSim } from "./support/ModelSim"
import { startModelSim } from "../src/startModelSim"
import { payloads, post } from "./post"

const chat = (text: string) => ({
  model: "sim-model",
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: "user", content: text }]
})
const responses = (thread: string) => ({ model: "sim-model", stream: true, prompt_cache_key: thread, input: [] })

describe("ModelSim faults", () => {
  it.scoped("429 carries retry-after and a message with the wait; the fault answers `times` requests, then the script goes on", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const url = `${sim.baseUrl}/chat/completions`
      for (const _ of [1, 2]) {
        const res = yield* post(url, chat("hi"))
        assert.strictEqual(res.status, 429)
        assert.strictEqual(res.headers.get("retry-after"), "120")
        assert.include(JSON.parse(res.body).error.message, "Please try again in 120s")
      }
      const ok = yield* post(url, chat("hi"))
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(payloads(ok).map((c) => c["choices"][0]?.["delta"]?.["content"] ?? "").join(""), "after the wait")
      assert.deepStrictEqual((yield* sim.requests()).map((r) => r.turn), [
        { fault: "429", retryAfter: 120, times: 2 },
        { fault: "429", retryAfter: 120, times: 2 },
        { say: "after the wait" }
      ])
    }).pipe(Effect.provide(ModelSim.layer({ turns: [{ fault: "429", retryAfter: 120, times: 2 }, { say: "after the wait" }] })))
  )

  it.scoped("500 answers every request when `times` is Infinity", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      for (const _ of [1, 2, 3]) {
        const res = yield* post(`${sim.baseUrl}/responses`, responses("t"))
        assert.strictEqual(res.status, 500)
        assert.strictEqual(JSON.parse(res.body).error.type, "server_error")
      }
    }).pipe(Effect.provide(ModelSim.layer({ turns: [{ fault: "500", times: Number.POSITIVE_INFINITY }] })))
  )

  it.scoped("cut: the stream starts, then the connection drops before the turn completes", () =>
    Effect.gen(function* () {
      const sim = yield* ModelSim
      const res = yield* post(`${sim.baseUrl}/responses`, responses("t"))
      assert.strictEqual(res.status, 200)
      assert.isDefined(res.broken)
      const types = payloads(res).map((e) => e["type"])
      assert.deepStrictEqual(types, ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"])
      const c = yield* post(`${sim.baseUrl}/chat/completions`, chat("x"))
      assert.isDefined(c.broken)
      assert.notInclude(c.body, "[DONE]")
      assert.notInclude(c.body, "finish_reason\":\"stop")
      assert.include(c.body, "delta")
    }).pipe(Effect.provide(ModelSim.layer({ turns: [{ fault: "cut", times: 2 }] })))
  )

  it.live("hang: the request is accepted and never answered, until the server closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(ModelSim.layer({ turns: [{ fault: "hang" }] }), scope)
      const sim = Context.get(context, ModelSim)
      let settled: string | undefined
      const pending = fetch(`${sim.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(chat("x")) }).then(
        () => (settled = "answered"),
        (error: unknown) => (settled = `failed: ${String(error)}`)
      )
      yield* Effect.sleep("400 millis")
      assert.strictEqual((yield* sim.requests()).length, 1)
      assert.isUndefined(settled)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.promise(() => pending)
      assert.match(settled ?? "", /^failed/)
    })
  )

  it.live("the plain API for callers outside Effect: close() releases the port", () =>
    Effect.gen(function* () {
      const sim = yield* Effect.promise(() => startModelSim({ turns: [{ say: "hi" }] }))
      const ok = yield* post(`${sim.baseUrl}/chat/completions`, chat("x"))
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(sim.requests.length, 1)
      yield* Effect.promise(() => sim.close())
      const refused = yield* Effect.promise(() => fetch(sim.url).then(() => "answered", () => "refused"))
      assert.strictEqual(refused, "refused")
    })
  )
})
