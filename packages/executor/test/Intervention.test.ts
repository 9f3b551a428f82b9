import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import { sessionFiles } from "../src/DurableSession/sessionFiles"
import type { InterventionChannel } from "../src/harness/Harness"
import { piChannel, piCommand } from "../src/harness/piChannel"
import { inboxPath, intervene } from "../src/Intervention"
import * as LocalTransport from "../src/LocalTransport"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const transport = LocalTransport.make()
const sessions = DurableSession.make(transport)

type StartOptions = { stdin?: string; keepStdinOpen?: boolean; feedInbox?: boolean }

const startIn = (argv: Array<string>, options: StartOptions) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir()
    const { record } = yield* sessions.start({
      attemptDir: path.join(dir, "attempt"),
      workdir: dir,
      argv,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      ...options
    })
    yield* Effect.addFinalizer(() => sessions.stop(record, { graceMs: 1_000 }).pipe(Effect.ignore))
    return record
  })

/**
 * A CLI in the manner of Pi's RPC mode, in sh: it prints each input line, then answers its id (`success: false` for a
 * message holding "refuse", nothing for one holding "mute") and, as Pi does once a message is in its conversation, ends
 * a user message with its text (not for one holding "hold": Pi keeps it queued); it exits 0 at the end of its input.
 */
const rpcCli = `while IFS= read -r line; do
  printf '%s\\n' "$line"
  id=$(printf '%s' "$line" | sed -n 's/.*"id":"\\([^"]*\\)".*/\\1/p')
  text=$(printf '%s' "$line" | sed -n 's/.*"message":"\\([^"]*\\)".*/\\1/p')
  case "$line" in
    *mute*) ;;
    *refuse*) printf '{"type":"response","id":"%s","success":false,"error":"not now"}\\n' "$id" ;;
    *hold*) printf '{"type":"response","id":"%s","success":true}\\n' "$id" ;;
    *) printf '{"type":"response","id":"%s","success":true}\\n' "$id"
       printf '{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"%s"}]}}\\n' "$text" ;;
  esac
done
echo '{"type":"bye"}'`

const fed = (channel: InterventionChannel = piChannel) =>
  Effect.gen(function* () {
    const record = yield* startIn(["sh", "-c", rpcCli], {
      stdin: piCommand({ id: "usine-task", type: "prompt", message: "the task" }),
      feedInbox: true
    })
    const send = (message: string) =>
      intervene(transport, { attemptId: "r/main/1", record, message, channel, answerWait: "4 seconds" })
    return { record, send }
  })

const streamLines = (record: Parameters<typeof sessions.follow>[0], n: number) =>
  sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.take(n), Stream.runCollect, Effect.map(Chunk.toReadonlyArray))

describe("Intervention", () => {
  it.scopedLive("a fed session: the task, then each message reach the CLI's stdin in order; delivered on its answer", () =>
    Effect.gen(function* () {
      const { record, send } = yield* fed()
      assert.strictEqual(record.stdin, "feed")
      const first = yield* send("please stop refactoring")
      assert.strictEqual(first.delivery.status, "delivered", first.delivery.detail)
      const second = yield* send("and keep the tests")
      assert.strictEqual(second.delivery.status, "delivered")
      const lines = (yield* streamLines(record, 9)).map((l) => JSON.parse(l) as { type: string; message?: string; id: string })
      assert.deepStrictEqual(
        lines.filter((l) => l.type === "prompt").map((l) => l.message),
        ["the task", "please stop refactoring", "and keep the tests"]
      )
      assert.isTrue(lines.filter((l) => l.type === "prompt").slice(1).every((l) => /^[0-9a-f-]{36}$/.test(l.id)))
      assert.strictEqual(fs.readdirSync(sessionFiles(record.attemptDir).fed).filter((f) => f.endsWith(".msg")).length, 2)
      assert.isTrue(yield* sessions.isLive(record), "stdin stays open until the daemon closes it")

      fs.writeFileSync(sessionFiles(record.attemptDir).close, "")
      const rest = yield* sessions.follow(record, { pollInterval: "10 millis", skipLines: 9 }).pipe(Stream.runCollect)
      assert.deepStrictEqual(Chunk.toReadonlyArray(rest), ['{"type":"bye"}'], "the close ends the CLI's input")
      assert.deepStrictEqual(yield* sessions.status(record), { _tag: "Exited", exitCode: 0, signal: null })
    }), 30_000)

  it.scopedLive("a CLI that refuses says why; one that does not answer in time leaves the message queued", () =>
    Effect.gen(function* () {
      const { send } = yield* fed()
      const refused = yield* send("refuse this")
      assert.deepStrictEqual(refused.delivery, { status: "refused", detail: "pi refused it: not now" })
      const unanswered = yield* send("mute this")
      assert.strictEqual(unanswered.delivery.status, "queued")
      assert.match(unanswered.delivery.detail, /^queued for the next turn: written to the agent's input, not yet acknowledged/)
    }), 30_000)

  it.scopedLive("a message the CLI accepted but keeps in its queue is queued, with the CLI's word on when it goes in", () =>
    Effect.gen(function* () {
      const { send } = yield* fed()
      const held = yield* send("hold this until the tool call ends")
      assert.deepStrictEqual(held.delivery, {
        status: "queued",
        detail: "pi queued it: it goes to the model with the agent's next request, after the current tool call"
      })
      const taken = yield* send("take this one")
      assert.deepStrictEqual(taken.delivery, {
        status: "delivered",
        detail: "pi took it into the conversation: it reaches the model with the agent's next request"
      })
    }), 30_000)

  it.scopedLive("a message that lands after the feed closed, as the session ends, is taken back and refused, never left queued", () =>
    Effect.gen(function* () {
      // The CLI reads nothing and outlives its feed by a second: the moment after an agent's last answer.
      const record = yield* startIn(["sh", "-c", "sleep 1; echo done"], { stdin: "", feedInbox: true })
      const files = sessionFiles(record.attemptDir)
      fs.writeFileSync(files.close, "")
      yield* Effect.sleep("700 millis")
      const late = yield* intervene(transport, { attemptId: "r/main/1", record, message: "one more thing", channel: piChannel, answerWait: "2 seconds" })
      assert.deepStrictEqual(late.delivery, {
        status: "refused",
        detail: "the agent had finished: its session ended before it could read the message"
      })
      assert.deepStrictEqual(fs.readdirSync(files.inbox).filter((f) => f.endsWith(".msg")), [], "nothing waits for a feeder that is gone")
    }), 30_000)

  it.scopedLive("a close with a message in the same round is taken back: the message is fed, the CLI goes on", () =>
    Effect.gen(function* () {
      const { record } = yield* fed()
      const files = sessionFiles(record.attemptDir)
      yield* streamLines(record, 3)
      fs.writeFileSync(path.join(files.inbox, "000000000000001-op-1.msg"), piCommand({ id: "op-1", type: "prompt", message: "late" }))
      fs.writeFileSync(files.close, "")
      const lines = yield* sessions.follow(record, { pollInterval: "10 millis", skipLines: 3 }).pipe(Stream.take(2), Stream.runCollect)
      assert.include(Chunk.toReadonlyArray(lines)[0] ?? "", '"message":"late"')
      yield* Effect.sleep("1500 millis")
      assert.isTrue(yield* sessions.isLive(record))
      assert.isFalse(fs.existsSync(files.close))
    }), 30_000)

  it.scopedLive("a command agent's message is queued in its inbox, numbered in order, never delivered", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["sleep", "100"], {})
      const send = (message: string) => intervene(transport, { attemptId: "r/main/1", record, message, channel: { _tag: "Inbox" } })
      const first = yield* send("first")
      yield* send("second")
      assert.strictEqual(first.delivery.status, "queued")
      assert.match(first.delivery.detail, /^queued in \$USINE_INBOX/)
      const inbox = inboxPath(record.attemptDir)
      assert.deepStrictEqual(fs.readdirSync(inbox), ["0001.md", "0002.md"])
      assert.strictEqual(fs.readFileSync(path.join(inbox, "0002.md"), "utf8"), "second")
    }))

  it.scopedLive("a harness without a channel refuses with its reason and leaves nothing for the agent", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["sleep", "100"], { stdin: "the task" })
      const channel: InterventionChannel = { _tag: "None", reason: "codex exec cannot take input mid-turn" }
      const result = yield* intervene(transport, { attemptId: "r/main/1", record, message: "hi", channel })
      assert.deepStrictEqual(result.delivery, { status: "refused", detail: "codex exec cannot take input mid-turn" })
      assert.deepStrictEqual(fs.readdirSync(inboxPath(record.attemptDir)), [])
    }))

  it.scopedLive("an older session with an open stdin FIFO gets the message written to it, queued", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["cat"], { stdin: "the task\n", keepStdinOpen: true })
      assert.deepStrictEqual(yield* streamLines(record, 1), ["the task"])
      const result = yield* intervene(transport, { attemptId: "r/main/1", record, message: "please stop", channel: { _tag: "Inbox" } })
      assert.strictEqual(result.delivery.status, "queued")
      assert.deepStrictEqual(yield* streamLines(record, 2), ["the task", "please stop"])
    }))

  it.scopedLive("answers SessionGone once the session has ended", () =>
    Effect.gen(function* () {
      const { record, send } = yield* fed()
      yield* sessions.stop(record, { graceMs: 1_000 })
      const error = yield* send("late").pipe(Effect.flip)
      assert.strictEqual(error._tag, "SessionGone")
    }))
})
