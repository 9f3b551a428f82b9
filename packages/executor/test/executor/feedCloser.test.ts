import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as DurableSession from "../../src/DurableSession"
import { sessionFiles } from "../../src/DurableSession/sessionFiles"
import { PiHarness } from "../../src/harness/PiHarness"
import { piCommand } from "../../src/harness/piChannel"
import { idOfMessageFile } from "../../src/Intervention"
import { feedCloser } from "../../src/WorkerExecutor/feedCloser"
import { feedLine } from "../../src/WorkerExecutor/feedLine"
import * as LocalTransport from "../../src/LocalTransport"
import { startedWith } from "../startedWith"

/** How long the stand-in stays in the step that wrote `agent_end`: far past the feeder's poll and the follower's. */
const STEP_SECONDS = 3

/**
 * A stand-in for Pi's RPC mode, in the order Pi keeps: the task's run fails on a 429, `agent_end` is written, and
 * only at the end of that same step (stretched here) the `auto_retry_start` and the retried run. Whatever it read
 * meanwhile is answered after them. Like Pi, it exits at the end of its input, whatever it is doing.
 */
const standIn = `
settled='{"isStreaming":false,"isCompacting":false,"pendingMessageCount":0}'
answer() {
  id=$(printf '%s' "$1" | sed -n 's/.*"id":"\\([^"]*\\)".*/\\1/p')
  case "$1" in
    *'"get_state"'*) printf '{"type":"response","id":"%s","command":"get_state","success":true,"data":%s}\\n' "$id" "$settled" ;;
  esac
}
while IFS= read -r line; do
  case "$line" in
    *'"prompt"'*)
      printf '{"type":"response","id":"usine-task","command":"prompt","success":true}\\n'
      printf '{"type":"agent_start"}\\n{"type":"agent_end","messages":[]}\\n'
      IFS= read -r -t ${STEP_SECONDS} next; got=$?
      [ $got -ge 128 ] || [ $got -eq 0 ] || exit 0
      printf '{"type":"auto_retry_start","attempt":1,"maxAttempts":1,"delayMs":100,"errorMessage":"429"}\\n'
      printf '{"type":"agent_start"}\\n'
      printf '{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"done after the retry"}],"usage":{},"stopReason":"stop"}}\\n'
      printf '{"type":"agent_end","messages":[]}\\n'
      [ $got -ne 0 ] || answer "$next" ;;
    *) answer "$line" ;;
  esac
done
`

describe("feedCloser on a real session and its feeder", () => {
  it.scopedLive("a retry Pi writes after agent_end is not cut: stdin closes only once a get_state probe's answer follows it", () =>
    Effect.gen(function* () {
      const transport = LocalTransport.make()
      const sessions = DurableSession.make(transport)
      const { record } = yield* startedWith(sessions)({
        argv: ["bash", "-c", standIn],
        stdin: piCommand({ id: "usine-task", type: "prompt", message: "the task" }),
        feedInbox: true
      })
      const parser = PiHarness.parser()
      const settle = feedCloser(transport, record, parser)
      const rows = yield* sessions.follow(record, { pollInterval: "20 millis" }).pipe(
        Stream.mapChunksEffect((chunk) =>
          Effect.gen(function* () {
            const out = Chunk.flatMap(chunk, (line) => Chunk.fromIterable(parser.line(line, 0)))
            yield* settle
            return out
          })
        ),
        Stream.runCollect,
        Effect.timeout("30 seconds")
      )
      assert.deepStrictEqual(yield* sessions.status(record), { _tag: "Exited", exitCode: 0, signal: null })
      const texts = Chunk.toReadonlyArray(rows).map((r) => r.text)
      assert.include(texts, "done after the retry", "the retried run reached its end before stdin closed")
      const fed = fs.readdirSync(sessionFiles(record.attemptDir).fed).filter((f) => f.endsWith(".msg")).map(idOfMessageFile)
      assert.deepStrictEqual(fed, ["usine-idle-1-0", "usine-idle-2-0"], "one probe per run's end, each fed once")
    }), 60_000)
})

/**
 * Reports, for each line it reads, what the inbox holds at that moment, with shell built-ins only (no fork, so it
 * looks before a feeder that wrote first and moved after could have moved): message files not yet fed, and `close`.
 */
const inboxWatcher = `while IFS= read -r line; do
  n=0; for m in ../attempt/inbox/*.msg; do [ -e "$m" ] && n=$((n+1)); done
  c=false; [ -e ../attempt/inbox/close ] && c=true
  printf '{"type":"seen","inbox":%d,"close":%s}\\n' "$n" "$c"
done`

const seenLines = (file: string) =>
  (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "").split("\n").filter((line) => line.includes('"seen"')).map((line) => JSON.parse(line) as { type: string; inbox: number; close: boolean })

describe("the feeder of a fed session", () => {
  it.scopedLive("moves a message to fed/ and removes a stale close before the CLI can read it: the CLI's answer is final for the daemon", () =>
    Effect.gen(function* () {
      const transport = LocalTransport.make()
      const sessions = DurableSession.make(transport)
      const { record } = yield* startedWith(sessions)({ argv: ["bash", "-c", inboxWatcher], stdin: "the task\n", feedInbox: true })
      const files = sessionFiles(record.attemptDir)
      const seen = (count: number) =>
        Effect.sync(() => seenLines(files.stream)).pipe(
          Effect.repeat({ until: (lines) => lines.length >= count, schedule: Schedule.spaced("20 millis") }),
          Effect.timeout("10 seconds"),
          Effect.andThen(Effect.sync(() => seenLines(files.stream)))
        )
      yield* seen(1)
      // A close the daemon dropped on a stale view, and a message arriving with it (an operator's, or a probe).
      yield* feedLine(transport, files.inbox, { id: "m-1", line: "a message\n" })
      yield* transport.writeFile(files.close, "")
      const lines = yield* seen(2)
      assert.deepStrictEqual(lines[1], { type: "seen", inbox: 0, close: false }, "the message was fed and the stale close gone before the CLI read it")
      yield* transport.writeFile(files.close, "")
      const status = yield* sessions.status(record).pipe(
        Effect.repeat({ until: (s) => s._tag === "Exited", schedule: Schedule.spaced("50 millis") }),
        Effect.timeout("10 seconds"),
        Effect.andThen(sessions.status(record))
      )
      assert.deepStrictEqual(status, { _tag: "Exited", exitCode: 0, signal: null }, "the close after the answer ended it")
      assert.deepStrictEqual(fs.readdirSync(files.fed).filter((f) => f.endsWith(".msg")).map(idOfMessageFile), ["m-1"])
    }), 30_000)
})
