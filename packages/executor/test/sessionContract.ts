import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Chunk, Deferred, Effect, Fiber, type Layer, Ref, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import { sessionFiles } from "../src/DurableSession/sessionFiles"
import { piChannel, piCommand } from "../src/harness/piChannel"
import { intervene } from "../src/Intervention"
import { WorkerTransport } from "../src/WorkerTransport"
import { groupExists, runningInGroup } from "./groupProcesses"
import { startedWith } from "./startedWith"

/** Zombies keep the group visible to kill(2) until their parent reaps them: wait, within a bound. */
const groupVanishes = (pgid: number) =>
  Effect.sync(() => groupExists(pgid)).pipe(
    Effect.filterOrFail((exists) => !exists),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeout("3 seconds"),
    Effect.isSuccess
  )

const counter = (n: number, pause: string) =>
  `i=0; while [ $i -lt ${n} ]; do echo "{\\"n\\":$i}"; i=$((i+1)); sleep ${pause}; done`

const expectedLines = (n: number) => Array.from({ length: n }, (_, i) => `{"n":${i}}`)

/** A slow host (SSH on a loaded machine) gets more time than vitest's default. */
const timeout = 30_000

/** What a durable session must do on every Worker transport: real processes, real files, the real clock. */
export const sessionContract = <E>(name: string, transportLayer: Layer.Layer<WorkerTransport, E>) =>
  layer(transportLayer, { excludeTestServices: true, timeout: "30 seconds" })(`DurableSession on ${name}`, (it) => {
    it.scoped("a new follower resumes after the lines an interrupted one read: no gap, no repeat", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record, handle } = yield* started({ argv: ["sh", "-c", counter(40, "0.03")] })
        const first = yield* Ref.make(Chunk.empty<string>())
        const enough = yield* Deferred.make<void>()
        const follower = yield* sessions.follow(record, { pollInterval: "20 millis" }).pipe(
          Stream.runForEach((line) =>
            Ref.updateAndGet(first, Chunk.append(line)).pipe(
              Effect.flatMap((lines) => (Chunk.size(lines) >= 5 ? Deferred.succeed(enough, undefined) : Effect.void))
            )
          ),
          Effect.fork
        )
        yield* Deferred.await(enough)
        yield* Fiber.interrupt(follower)
        assert.isTrue(yield* sessions.isLive(record), "the agent outlives its follower")

        const read = Chunk.toReadonlyArray(yield* Ref.get(first))
        const reattached = yield* sessions.decode(handle)
        const rest = yield* sessions
          .follow(reattached, { pollInterval: "20 millis", skipLines: read.length })
          .pipe(Stream.runCollect)
        assert.deepStrictEqual([...read, ...Chunk.toReadonlyArray(rest)], expectedLines(40))
        const file = fs.readFileSync(path.join(record.attemptDir, "stream.jsonl"), "utf8")
        assert.deepStrictEqual(file.trimEnd().split("\n"), expectedLines(40))
      }), timeout)

    it.scoped("writes the exit status, and the follower ends once the file is drained", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({ argv: ["sh", "-c", "echo one; printf two; exit 3"] })
        const lines = yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.runCollect)
        assert.deepStrictEqual(Chunk.toReadonlyArray(lines), ["one", "two"])
        const status = yield* sessions.status(record)
        assert.deepStrictEqual(status, { _tag: "Exited", exitCode: 3, signal: null })
        assert.strictEqual(fs.readFileSync(path.join(record.attemptDir, "exit"), "utf8"), "3\n")
        assert.isFalse(yield* sessions.isLive(record))
      }), timeout)

    it.scoped("gives the agent exactly the environment it was given, and keeps no env file", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({
          argv: ["env"],
          env: { PATH: "/usr/bin:/bin", USINE_TOKEN: "it's $secret" }
        })
        const lines = yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.runCollect)
        const vars = Chunk.toReadonlyArray(lines).filter((line) => !line.startsWith("PWD=")).sort()
        assert.deepStrictEqual(vars, ["PATH=/usr/bin:/bin", "USINE_TOKEN=it's $secret"])
        assert.isFalse(fs.existsSync(path.join(record.attemptDir, "env.sh")))
      }), timeout)

    it.scoped("keeps the agent's raw output readable by its owner only, and leaves the agent's umask alone", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({ argv: ["sh", "-c", "umask; echo oops >&2"] })
        const lines = yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.runCollect)
        assert.notStrictEqual(Chunk.toReadonlyArray(lines)[0], "0077", "the agent runs with the daemon's umask")
        for (const file of ["stream.jsonl", "stderr.log"]) {
          assert.strictEqual(fs.statSync(path.join(record.attemptDir, file)).mode & 0o777, 0o600, file)
        }
      }), timeout)

    it.scoped("cancel ends every process of the group when the agent obeys SIGTERM", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({ argv: ["sh", "-c", "sleep 100 & sleep 100 & echo up; wait"] })
        yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.take(1), Stream.runDrain)
        assert.isAtLeast(runningInGroup(record.pgid).length, 3)
        const outcome = yield* sessions.stop(record, { graceMs: 2_000 })
        assert.strictEqual(outcome, "Terminated")
        assert.deepStrictEqual(runningInGroup(record.pgid), [])
        assert.isTrue(yield* groupVanishes(record.pgid), "kill(-pgid, 0) ends in ESRCH")
        assert.deepStrictEqual(yield* sessions.status(record), { _tag: "Exited", exitCode: null, signal: "SIGTERM" })
      }), timeout)

    it.scoped("cancel kills a group that ignores SIGTERM once the grace period is over", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({
          argv: ["sh", "-c", "trap '' TERM; sleep 100 & sleep 100 & echo up; wait"]
        })
        yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.take(1), Stream.runDrain)
        // Uninterruptible, as in a finalizer: the grace period must still end.
        const outcome = yield* Effect.uninterruptible(sessions.stop(record, { graceMs: 300 }))
        assert.strictEqual(outcome, "Killed")
        assert.deepStrictEqual(runningInGroup(record.pgid), [])
        assert.isTrue(yield* groupVanishes(record.pgid), "kill(-pgid, 0) ends in ESRCH")
        assert.strictEqual(yield* sessions.stop(record, { graceMs: 300 }), "NotRunning")
      }), timeout)

    it.scoped("a session killed with SIGKILL is not live, is Gone, and its follower fails", () =>
      Effect.gen(function* () {
        const sessions = DurableSession.make(yield* WorkerTransport)
        const started = startedWith(sessions)
        const { record } = yield* started({ argv: ["sh", "-c", "echo up; sleep 100"] })
        yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.take(1), Stream.runDrain)
        assert.isTrue(yield* sessions.isLive(record))
        process.kill(-record.pgid, "SIGKILL")
        yield* Effect.sleep("20 millis").pipe(
          Effect.repeat({ until: () => runningInGroup(record.pgid).length === 0 }),
          Effect.timeout("5 seconds")
        )
        assert.isFalse(yield* sessions.isLive(record))
        assert.strictEqual((yield* sessions.status(record))._tag, "Gone")
        const error = yield* sessions.follow(record, { pollInterval: "10 millis" }).pipe(Stream.runCollect, Effect.flip)
        assert.strictEqual(error._tag, "SessionVanished")
      }), timeout)

    it.scoped("a fed session takes the task, then a message through its inbox, acknowledged in its stream; the close ends it", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const sessions = DurableSession.make(transport)
        const started = startedWith(sessions)
        // Echoes each input line, then answers its id and ends a user message with its text the way Pi's RPC mode does
        // (the message is then in its conversation, ADR 0093); exits at the end of its input.
        const cli = `while IFS= read -r line; do printf '%s\\n' "$line"; id=$(printf '%s' "$line" | sed -n 's/.*"id":"\\([^"]*\\)".*/\\1/p'); text=$(printf '%s' "$line" | sed -n 's/.*"message":"\\([^"]*\\)".*/\\1/p'); printf '{"type":"response","id":"%s","success":true}\\n' "$id"; printf '{"type":"message_end","message":{"role":"user","content":[{"type":"text","text":"%s"}]}}\\n' "$text"; done`
        const { record } = yield* started({ argv: ["sh", "-c", cli], stdin: piCommand({ id: "usine-task", type: "prompt", message: "the task" }), feedInbox: true })
        const sent = yield* intervene(transport, { attemptId: "r/main/1", record, message: "and this", channel: piChannel })
        assert.strictEqual(sent.delivery.status, "delivered", sent.delivery.detail)
        yield* transport.writeFile(sessionFiles(record.attemptDir).close, "")
        const lines = yield* sessions.follow(record, { pollInterval: "20 millis" }).pipe(Stream.runCollect)
        const messages = Chunk.toReadonlyArray(lines).flatMap((line) => {
          const parsed = JSON.parse(line) as { readonly type: string; readonly message?: string }
          return parsed.type === "prompt" ? [parsed.message] : []
        })
        assert.deepStrictEqual(messages, ["the task", "and this"])
        assert.deepStrictEqual(yield* sessions.status(record), { _tag: "Exited", exitCode: 0, signal: null })
      }), 2 * timeout)
  })
