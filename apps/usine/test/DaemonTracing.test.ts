import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { DaemonTracing } from "../src/daemon/DaemonTracing"
import { tracingSettings } from "../src/daemon/tracingSettings"

/** A collector stand-in: the raw bodies and content types POSTed to it. */
const receiver = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly bodies: Array<{ readonly type: string; readonly path: string; readonly body: Buffer }>; readonly close: () => void }>((resume) => {
    const bodies: Array<{ type: string; path: string; body: Buffer }> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk)).on("end", () => {
        bodies.push({ type: req.headers["content-type"] ?? "", path: req.url ?? "", body: Buffer.concat(chunks) })
        res.writeHead(200).end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => void server.close() })))
  }),
  (r) => Effect.sync(r.close)
)

const TOKEN = `ghp_${"a1B2".repeat(9)}`

describe("DaemonTracing", () => {
  it("reads OpenTelemetry's variables: off without an endpoint, the traces endpoint as is, grpc refused", () => {
    assert.isUndefined(tracingSettings({}))
    assert.isUndefined(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))
    const base = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/", OTEL_EXPORTER_OTLP_HEADERS: "x-key=a%3Db, other = 2" })
    assert.deepStrictEqual(base, { url: "http://c:4318/v1/traces", protocol: "http/protobuf", headers: { "x-key": "a=b", other: "2" }, serviceName: "usine", exportIntervalMs: 5000 })
    const traces = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "u" })
    assert.include(traces, { url: "http://t/x", protocol: "http/json", serviceName: "u" })
    assert.deepStrictEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), {
      refused: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/protobuf or http/json"
    })
  })

  it.scopedLive("exports protobuf by default, hands usine.* attributes down to child spans, and redacts every string", () =>
    Effect.gen(function* () {
      const collector = yield* receiver
      const tracing = DaemonTracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: "50" }, makeRedactor([]).redact)
      yield* Effect.scoped(
        Effect.void.pipe(
          Effect.withSpan("child.phase", { attributes: { route: `GET /user?access_token=${TOKEN}` } }),
          Effect.withSpan("run.span", { attributes: { "usine.run_id": "run-7f3a", "usine.loop": "fix", other: "not-inherited" } }),
          Effect.provide(tracing)
        )
      )
      const body = Buffer.concat(collector.bodies.map((b) => b.body))
      assert.isAbove(collector.bodies.length, 0)
      assert.include(collector.bodies[0]?.type ?? "", "application/x-protobuf")
      assert.strictEqual(collector.bodies[0]?.path, "/v1/traces")
      const text = body.toString("latin1")
      assert.strictEqual(text.split("run-7f3a").length - 1, 2, "the Run's id on the Run's span and on its child")
      assert.strictEqual(text.split("not-inherited").length - 1, 1, "only usine.* attributes are handed down")
      assert.notInclude(text, TOKEN)
      assert.include(text, "[REDACTED:github_token]")
    }))

  it.effect("is nothing at all without an endpoint", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(DaemonTracing({}, (s) => s))
      assert.strictEqual(context.unsafeMap.size, 0)
    }).pipe(Effect.scoped))
})
