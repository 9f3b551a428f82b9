import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import { inboxPath, intervene } from "../src/Intervention"
import * as LocalTransport from "../src/LocalTransport"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const transport = LocalTransport.make()
const sessions = DurableSession.make(transport)

const startIn = (argv: Array<string>, options: { stdin?: string; keepStdinOpen?: boolean }) =>
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

describe("Intervention", () => {
  it.scopedLive("reaches an agent reading a kept-open stdin, which echoes it in its stream", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["cat"], { stdin: "the task\n", keepStdinOpen: true })
      const lines = sessions.follow(record, { pollInterval: "10 millis" })
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* lines.pipe(Stream.take(1), Stream.runCollect)), ["the task"])
      assert.isTrue(yield* sessions.isLive(record), "stdin stays open after the prompt")

      const row = yield* intervene(transport, { attemptId: "r/main/1", record, message: "please stop refactoring" })
      assert.strictEqual(row.kind, "operator")
      assert.strictEqual(row.text, "please stop refactoring")
      const echoed = yield* sessions
        .follow(record, { pollInterval: "10 millis", skipLines: 1 })
        .pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Chunk.toReadonlyArray(echoed), ["please stop refactoring"])
    }))

  it.scopedLive("drops messages into the inbox of an agent without stdin, numbered in order", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["sleep", "100"], {})
      yield* intervene(transport, { attemptId: "r/main/1", record, message: "first" })
      yield* intervene(transport, { attemptId: "r/main/1", record, message: "second" })
      const inbox = inboxPath(record.attemptDir)
      assert.deepStrictEqual(fs.readdirSync(inbox), ["0001.md", "0002.md"])
      assert.strictEqual(fs.readFileSync(path.join(inbox, "0002.md"), "utf8"), "second")
    }))

  it.scopedLive("answers SessionGone once the session has ended", () =>
    Effect.gen(function* () {
      const record = yield* startIn(["cat"], { keepStdinOpen: true })
      yield* sessions.stop(record, { graceMs: 1_000 })
      const error = yield* intervene(transport, { attemptId: "r/main/1", record, message: "late" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "SessionGone")
    }))
})
