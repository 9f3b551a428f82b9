import { assert, describe, it } from "@effect/vitest"
import { request } from "node:http"
import { Effect, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { Script } from "@usine/testkit/InMemoryExecutor"
import { openEventStream, type ServerEvent } from "./support/EventStreamClient"
import { attrs } from "./support/html"
import { eventually, REPOSITORY, runOf, SECRET, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)> ${TOKEN} ${SECRET}`

/** Moves the test clock a second at a time until the stream has delivered the awaited event. */
const awaitEvent = (events: Array<ServerEvent>, label: string, found: (e: ServerEvent) => boolean) =>
  eventually(label, () =>
    events.some(found) ? Effect.succeed(true) : Effect.as(TestClock.adjust("1 second"), events.some(found)))

describe("Board live pages and what they never show", () => {
  it.scoped("escapes every user text and redacts tokens and known secrets, on pages and in JSON", () =>
    Effect.gen(function* () {
      const { client, engine, items, memory, store } = yield* startBoard()
      const browser = client()
      const run = { ...submission({ number: 1, loop: "gated" }), task: `Fix: ${HOSTILE}` }
      const failing = submission({ number: 2 })
      memory.script(runOf(failing), Script.fail(new AgentFailure({ reason: `push refused ${TOKEN}`, evidence: HOSTILE })))
      yield* engine.submit(run)
      yield* engine.submit(failing)
      yield* untilState(store, runOf(run), "Waiting")
      yield* untilState(store, runOf(failing), "Failed")
      yield* store.appendTranscript(attemptIdOf(runOf(failing), 1), [
        { kind: "tool_call", tool: "bash", text: HOSTILE, at: 0 },
        { kind: "assistant", text: `export GITHUB_TOKEN=${TOKEN}`, at: 0 }
      ])
      yield* items.saveProjection({
        itemKey: itemKeyOf(REPOSITORY, 1), repository: REPOSITORY, number: 1, contentHash: "h", observedAt: 0,
        payload: { title: HOSTILE, state: "OPEN", url: "javascript:alert(3)", labels: { nodes: [{ name: "ready-for-agent" }] } }
      })
      const paths = ["/", "/runs", `/runs/${runOf(run)}`, `/runs/${runOf(failing)}`, "/board", "/loops"]
      for (const path of paths) {
        for (const twin of [path, path === "/" ? "/api/needs-you" : `/api${path}`]) {
          const body = (yield* promise(() => browser.get(twin))).body
          assert.notInclude(body, TOKEN, twin)
          assert.notInclude(body, SECRET, twin)
        }
        // JSON carries the text as data (the script renders it with textContent); HTML must escape it.
        const html = (yield* promise(() => browser.get(path))).body
        assert.notInclude(html, "<script>alert", path)
        assert.notInclude(html, "<img src=x", path)
        assert.notInclude(html, 'href="javascript:', path)
      }
      const runPage = (yield* promise(() => browser.get(`/runs/${runOf(failing)}`))).body
      assert.include(runPage, "&lt;script&gt;alert(1)&lt;/script&gt;", "shown as text")
      assert.include(runPage, "[REDACTED:github_token]")
      assert.include(runPage, "[REDACTED:secret]")
      const board = (yield* promise(() => browser.get("/board"))).body
      assert.include(board, "&lt;img src=x onerror=alert(2)&gt;")
    }))

  it.scoped("the Run stream delivers new transcript rows, redacted, a new note, and the state change when the Run closes", () =>
    Effect.gen(function* () {
      const { brakes, client, engine, memory, server, store } = yield* startBoard()
      const browser = client()
      const run = submission({ number: 3 })
      memory.script(runOf(run), Script.hang)
      yield* engine.submit(run)
      yield* untilState(store, runOf(run), "Running")
      const attemptId = attemptIdOf(runOf(run), 1)
      yield* eventually("the session's first row", () => Effect.map(store.transcript(attemptId), (rows) => rows.length > 0))
      const page = (yield* promise(() => browser.get(`/runs/${runOf(run)}`))).body
      const lastSeq = attrs(page, "transcript", "data-last-seq")[0] ?? ""
      const version = attrs(page, "transcript", "data-version")[0] ?? ""
      const note = attrs(page, "transcript", "data-note")[0] ?? ""
      assert.strictEqual(note, "0")
      assert.strictEqual(attrs(page, "transcript", "data-attempt-id")[0], attemptId)

      const stream = yield* openEventStream(
        server.port,
        `/api/runs/${runOf(run)}/stream?attempt=${encodeURIComponent(attemptId)}&after=${lastSeq}&version=${version}&note=${note}`,
        { host: `127.0.0.1:${server.port}`, accept: "text/event-stream" }
      )
      assert.strictEqual(stream.status, 200)
      yield* store.appendTranscript(attemptId, [
        { kind: "assistant", text: `working with **${TOKEN}**`, at: 0 },
        { kind: "tool_call", tool: "bash", text: "npm test <&2", at: 0 }
      ])
      yield* awaitEvent(stream.events, "a transcript event", (e) => e.event === "transcript")
      const transcripts = stream.events.filter((e) => e.event === "transcript").map((e) => JSON.parse(e.data))
      const delivered = transcripts.flatMap((data) => data.rows)
      assert.deepStrictEqual(delivered.map((r: any) => [r.seq, r.text]), [
        [Number(lastSeq) + 1, "working with **[REDACTED:github_token]**"],
        [Number(lastSeq) + 2, "npm test <&2"]
      ])
      // Each row also as the page renders it (issue 21), which the script inserts: Markdown rendered, text escaped.
      const html: Array<string> = transcripts.flatMap((data) => data.html)
      assert.include(html[0], "<p>working with <strong>[REDACTED:github_token]</strong></p>")
      assert.include(html[1], '<pre class="tool-command scroll" data-testid="tool-command">npm test &lt;&amp;2</pre>')

      // A hold writes no Run row, only a note: the page still hears of it.
      yield* brakes.holdRun({ runId: runOf(run), kind: "AgentQuota", reason: "quota", until: undefined, since: 0 })
      yield* awaitEvent(stream.events, "a note event", (e) => e.event === "note")
      assert.deepStrictEqual(stream.events.filter((e) => e.event === "state"), [], "the Run itself did not change")

      yield* engine.cancel(runOf(run))
      yield* awaitEvent(stream.events, "a state event", (e) => e.event === "state")
      const state = stream.events.find((e) => e.event === "state")
      assert.strictEqual(JSON.parse(state?.data ?? "{}").state, "Canceled")
    }))

  it.scoped("/events says `changed` when the ledger changes, and nothing while it does not", () =>
    Effect.gen(function* () {
      const { engine, server, store } = yield* startBoard()
      const stream = yield* openEventStream(server.port, "/events", { host: `127.0.0.1:${server.port}` })
      yield* eventually("ready", () => stream.events.some((e) => e.event === "ready"))
      yield* TestClock.adjust("3 seconds")
      yield* eventually("quiet polls", () => true)
      assert.deepStrictEqual(stream.events.map((e) => e.event), ["ready"])
      const gated = submission({ number: 4, loop: "gated" })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      yield* awaitEvent(stream.events, "changed", (e) => e.event === "changed")
    }))

  it.scoped("closing the Board's scope ends open streams and closes the server", () =>
    Effect.gen(function* () {
      const ended = yield* Effect.scoped(Effect.gen(function* () {
        const { server } = yield* startBoard()
        const events: Array<string> = []
        const done = { ended: false }
        const req = request({ host: "127.0.0.1", port: server.port, path: "/events", headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
          res.on("data", (chunk: Buffer) => events.push(chunk.toString()))
          res.on("end", () => (done.ended = true))
          res.on("error", () => (done.ended = true))
        })
        req.on("error", () => (done.ended = true))
        req.end()
        yield* eventually("ready", () => events.join("").includes("event: ready"))
        return { done, port: server.port }
      }))
      yield* eventually("the stream ended", () => ended.done.ended)
      const refused = yield* Effect.promise(() =>
        new Promise<boolean>((resolve) => request({ host: "127.0.0.1", port: ended.port, path: "/" }).on("error", () => resolve(true)).on("response", () => resolve(false)).end())
      )
      assert.isTrue(refused, "nothing listens any more")
    }))
})
