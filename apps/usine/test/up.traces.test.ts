import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { eventually } from "./support/http"
import { loopbackReceiver } from "./support/loopbackReceiver"
import { upIn, upWorld } from "./support/upWorld"

interface OtlpValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly boolValue?: boolean
  readonly doubleValue?: number
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: OtlpValue }>
}
interface Received {
  readonly contentType: string | undefined
  readonly path: string | undefined
  readonly body: string
}

/** An OTLP/HTTP collector stand-in on loopback: every POST /v1/traces body it received. */
const otlpReceiver = Effect.map(loopbackReceiver({ contentType: "application/json", body: "{}" }), (r) => ({
  url: r.origin,
  get received(): ReadonlyArray<Received> {
    return r.received.map((d) => ({ contentType: d.headers["content-type"], path: d.path, body: d.body }))
  }
}))

const spansOf = (received: ReadonlyArray<Received>): ReadonlyArray<OtlpSpan> =>
  received.flatMap((r) => {
    const data = JSON.parse(r.body) as { resourceSpans: ReadonlyArray<{ scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<OtlpSpan> }> }> }
    return data.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
  })

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue

describe("usine up: traces", () => {
  it.scopedLive("one Run from poll to pull request is one trace: poll, GitHub calls, the Attempt and its phases, all with the Run's id; no token in it", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim, token } = world
      const collector = yield* otlpReceiver
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))
      const { usine } = yield* upIn(world, {
        loops: [loop("fix", "ready-for-agent", "none")],
        edit: (yaml) => yaml.replace("    approval: none", "    approval: none\n    verify: [node --test]"),
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "usine-under-test",
          OTEL_BSP_SCHEDULE_DELAY: "200"
        }
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const opened = yield* usine.waitFor(/msg="attempt 1 succeeded: (http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/\d+)"/, "90 seconds")
      const runId = (yield* usine.waitFor(/msg="attempt 1 succeeded[^\n]* run=([0-9a-f]{32})/))[1] ?? ""

      const names = ["PollingTriggers.pollOnce", "GitHubClient.conditional", "RunDriver.drive", "RunDriver.attempt", "WorkerExecutor.execute",
        "WorkerExecutor.prepare", "Workspace.acquire", "WorkerExecutor.runTurn", "Verify.round", "Harvest.harvest", "PullRequests.ensure"]
      const trace = yield* eventually("the Run's trace reached the collector", Effect.sync(() => {
        const spans = spansOf(collector.received)
        const run = spans.find((s) => s.name === "RunDriver.drive" && attribute(s, "usine.run_id") === runId)
        if (run === undefined) return Option.none()
        const inTrace = spans.filter((s) => s.traceId === run.traceId)
        return Option.liftPredicate({ run, spans: inTrace }, ({ spans }) => names.every((name) => spans.some((s) => s.name === name)) && spans.some((s) => s.name === "GitHubClient.request" && attribute(s, "usine.run_id") === runId))
      }), 30)
      assert.strictEqual(collector.received[0]?.path, "/v1/traces")
      assert.include(collector.received[0]?.contentType ?? "", "application/json")
      assert.strictEqual(attribute(trace.run, "usine.item"), `${REPOSITORY}#${issue.number}`)
      assert.strictEqual(attribute(trace.run, "usine.loop"), "fix")

      // The trace starts at the poll cycle that opened the Run; every span under the Run's carries its id.
      const byId = new Map(trace.spans.map((s) => [s.spanId, s]))
      const root = trace.spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === "" || !byId.has(s.parentSpanId))
      assert.strictEqual(root?.name, "PollingTriggers.pollOnce", "the trace begins with the poll")
      const underRun = (span: OtlpSpan): boolean => {
        for (let at: OtlpSpan | undefined = span; at !== undefined; at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId)) {
          if (at.spanId === trace.run.spanId) return true
        }
        return false
      }
      const runSpans = trace.spans.filter(underRun)
      assert.isAbove(runSpans.length, names.length - 3)
      for (const span of runSpans) {
        assert.strictEqual(attribute(span, "usine.run_id"), runId, `${span.name} carries the Run's id`)
        assert.strictEqual(attribute(span, "usine.loop"), "fix", span.name)
      }
      const pullRequest = runSpans.filter((s) => s.name === "GitHubClient.request").map((s) => attribute(s, "route"))
      assert.include(pullRequest, "POST /repos/{owner}/{repo}/pulls", "the pull request was opened under the Run's span")
      const opening = runSpans.find((s) => s.name === "GitHubClient.request" && attribute(s, "route") === "POST /repos/{owner}/{repo}/pulls")
      assert.strictEqual(Number(opening?.attributes.find((a) => a.key === "http.response.status_code")?.value.intValue), 201, "its answer's status")
      assert.include(opened[1] ?? "", "/pull/")

      const everything = collector.received.map((r) => r.body).join("\n")
      assert.notInclude(everything, token)
      assert.notMatch(everything, /ghp_|github_pat_/, "no token in any span")
      assert.notInclude(everything, "Fix issue #", "no prompt in any span")
      assert.include(everything, "usine-under-test", "OTEL_SERVICE_NAME names the service")
    }), 180_000)
})
