import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, type Layer, Option, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { WorkerTransport } from "../src/WorkerTransport"
import { runningInGroup } from "./groupProcesses"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const bytes = (...values: Array<number>) => new Uint8Array(values)

/** Waits, within a bound, for a condition the kernel reaches on its own (a killed process disappearing). */
const eventually = (condition: () => boolean) =>
  Effect.sync(condition).pipe(
    Effect.filterOrFail((holds) => holds),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeout("5 seconds"),
    Effect.isSuccess
  )

/** A slow host (SSH on a loaded machine) gets more time than vitest's default. */
const timeout = 30_000

/** What every Worker transport must do, run against each implementation. */
export const transportContract = <E>(name: string, transportLayer: Layer.Layer<WorkerTransport, E>) =>
  layer(transportLayer, { excludeTestServices: true, timeout: "30 seconds" })(`WorkerTransport contract: ${name}`, (it) => {
    it.scoped("exec runs argv verbatim in cwd with added env and stdin, and reports the exit", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        const result = yield* transport.exec({
          argv: ["sh", "-c", `printf '%s|%s|' "$1" "$USINE_X"; pwd; cat; echo oops >&2; exit 7`, "sh", "a 'b' $c"],
          cwd: dir,
          env: { USINE_X: "x y" },
          stdin: "from stdin\n"
        })
        assert.deepStrictEqual(result, { exitCode: 7, stdout: `a 'b' $c|x y|${dir}\nfrom stdin\n`, stderr: "oops\n", outputDropped: 0 })
        const missing = yield* transport.exec({ argv: ["true"], cwd: path.join(dir, "nope") }).pipe(Effect.flip)
        assert.strictEqual(missing._tag, "HostOperationFailed")
      }), timeout)

    it.scoped("exec keeps the last maxOutputBytes of a flood and counts the rest (ADR 0085)", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const result = yield* transport.exec({
          argv: ["sh", "-c", "head -c 30000000 /dev/zero | tr '\\0' a; printf end"],
          maxOutputBytes: 1000
        })
        assert.strictEqual(result.exitCode, 0)
        assert.strictEqual(result.stdout, `${"a".repeat(997)}end`)
        assert.strictEqual(result.outputDropped, 30_000_003 - 1000)
      }), timeout)

    it.scoped("exec past its timeout fails and kills what the command started", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        const pidFile = path.join(dir, "pid")
        // Uninterruptible, as in a finalizer (git worktree remove): the timeout must still end it.
        const error = yield* transport
          .exec({ argv: ["sh", "-c", `sleep 30 & echo $! > ${pidFile}; wait`], timeoutMs: 1_000 })
          .pipe(Effect.flip, Effect.uninterruptible)
        assert.strictEqual(error._tag, "HostCommandTimedOut")
        const pid = Number(fs.readFileSync(pidFile, "utf8"))
        assert.isTrue(yield* eventually(() => !fs.existsSync(`/proc/${pid}`) || fs.readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")))
      }), timeout)

    it.scoped("reads and writes files byte for byte, from an offset, atomically, with a mode", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        const file = path.join(dir, "a", "b", "data")
        assert.isTrue(Option.isNone(yield* transport.readFile(file)))
        const content = bytes(0x68, 0x00, 0xff, 0x0a, 0xe2, 0x82, 0xac, 0x0a)
        yield* transport.writeFile(file, content, { mode: 0o600 })
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        assert.deepStrictEqual(yield* transport.readFile(file), Option.some(content))
        assert.deepStrictEqual(yield* transport.readFile(file, { offset: 2, maxBytes: 3 }), Option.some(bytes(0xff, 0x0a, 0xe2)))
        assert.deepStrictEqual(yield* transport.readFile(file, { offset: 8 }), Option.some(bytes()))
        assert.deepStrictEqual(yield* transport.readFile(file, { maxBytes: 0 }), Option.some(bytes()))
        yield* transport.writeFile(file, "replaced")
        assert.strictEqual(fs.readFileSync(file, "utf8"), "replaced")
        assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), ["data"], "no temporary file left")
      }), timeout)

    it.scoped("appends to files and FIFOs, and reports a FIFO nobody reads", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        const file = path.join(dir, "log")
        fs.writeFileSync(file, "one\n")
        assert.isTrue(yield* transport.appendFile(file, "two\n"))
        assert.strictEqual(fs.readFileSync(file, "utf8"), "one\ntwo\n")
        assert.isFalse(yield* transport.appendFile(path.join(dir, "absent"), "x"))

        const fifo = path.join(dir, "fifo")
        yield* transport.makeFifo(fifo)
        assert.isTrue(fs.statSync(fifo).isFIFO())
        assert.isFalse(yield* transport.appendFile(fifo, "nobody\n"))
        const reader = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK)
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.closeSync(reader)))
        assert.isTrue(yield* transport.appendFile(fifo, "steer\n"))
        const buffer = Buffer.alloc(64)
        const n = fs.readSync(reader, buffer)
        assert.strictEqual(buffer.subarray(0, n).toString("utf8"), "steer\n")
      }), timeout)

    it.scoped("creates, lists, resolves and removes paths without following links", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        yield* transport.makeDirectory(path.join(dir, "x", "y"))
        fs.writeFileSync(path.join(dir, ".hidden"), "")
        const target = path.join(dir, "target")
        fs.mkdirSync(target)
        fs.writeFileSync(path.join(target, "keep"), "")
        fs.symlinkSync(target, path.join(dir, "link"))
        assert.deepStrictEqual(yield* transport.listDirectory(dir), [".hidden", "link", "target", "x"])
        assert.deepStrictEqual(yield* transport.listDirectory(path.join(dir, "absent")), [])
        assert.strictEqual(yield* transport.realPath(path.join(dir, "link", "new", "file")), path.join(target, "new", "file"))
        yield* transport.remove(path.join(dir, "link"))
        yield* transport.remove(path.join(dir, "x"))
        yield* transport.remove(path.join(dir, "absent"))
        assert.deepStrictEqual(fs.readdirSync(dir).sort(), [".hidden", "target"])
        assert.isTrue(fs.existsSync(path.join(target, "keep")))
      }), timeout)

    it.scoped("starts a detached process in its own session with exactly its env, then signals its group", () =>
      Effect.gen(function* () {
        const transport = yield* WorkerTransport
        const dir = yield* scopedTempDir()
        const envFile = path.join(dir, "env")
        const stat = yield* transport.spawnDetached({
          argv: ["/bin/sh", "-c", `env > ${envFile}.tmp; mv ${envFile}.tmp ${envFile}; sleep 100 & wait`],
          cwd: dir,
          env: { PATH: "/usr/bin:/bin", USINE_ONLY: "yes" }
        })
        yield* Effect.addFinalizer(() => transport.signalGroup(stat.pgid, "SIGKILL").pipe(Effect.ignore))
        assert.strictEqual(stat.pgid, stat.pid)
        const fields = fs.readFileSync(`/proc/${stat.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
        assert.strictEqual(Number(fields[3]), stat.pid, "leads its own session")
        const info = Option.getOrThrow(yield* transport.processInfo(stat.pid))
        assert.deepStrictEqual([info.pid, info.pgid, info.startTime], [stat.pid, stat.pgid, stat.startTime])
        assert.isTrue(yield* eventually(() => fs.existsSync(envFile)))
        const vars = fs.readFileSync(envFile, "utf8").trim().split("\n").filter((l) => !l.startsWith("PWD=")).sort()
        assert.deepStrictEqual(vars, ["PATH=/usr/bin:/bin", "USINE_ONLY=yes"])

        assert.isTrue(yield* eventually(() => runningInGroup(stat.pgid).length === 2))
        const members = yield* transport.groupMembers(stat.pgid)
        assert.deepStrictEqual(members.map((m) => m.pid).sort(), runningInGroup(stat.pgid).sort())
        assert.isTrue(yield* transport.signalGroup(stat.pgid, "SIGKILL"))
        assert.isTrue(yield* eventually(() => runningInGroup(stat.pgid).length === 0))
        const after = yield* transport.groupMembers(stat.pgid)
        assert.deepStrictEqual(after.filter((m) => m.state !== "Z"), [])
        assert.isTrue(Option.isNone(yield* transport.processInfo(4_194_303)))
      }), timeout)
  })
