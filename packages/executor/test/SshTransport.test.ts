import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import * as SshTransport from "../src/SshTransport"
import { WorkerTransport } from "../src/WorkerTransport"
import { runningInGroup } from "./groupProcesses"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { sessionContract } from "./sessionContract"
import { sshdAvailable, sshServer } from "./sshServer"
import { transportContract } from "./transportContract"

const sshLayer = Layer.scoped(
  WorkerTransport,
  Effect.gen(function* () {
    const server = yield* sshServer(yield* scopedTempDir("usine-sshd-"))
    return yield* SshTransport.make({ destination: server.destination, sshOptions: server.options })
  })
)

// The server runs on this machine, so the contracts' local checks see the "remote" host's files and processes.
// Each ssh round trip costs 0.3 s on a loaded machine: the full contracts (about 45 s) run on request only.
describe.runIf(sshdAvailable && process.env.USINE_TEST_SSH === "full")("SshTransport, full contracts", () => {
  transportContract("SshTransport", sshLayer)
  sessionContract("SshTransport", sshLayer)
})

describe.runIf(sshdAvailable)("SshTransport against OpenSSH on 127.0.0.1", () => {
  it.scopedLive("runs a durable session on the host: follow, detach, reattach, cancel", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("usine-sshd-")
      const server = yield* sshServer(dir)
      const transport = yield* SshTransport.make({ destination: server.destination, sshOptions: server.options })
      const sessions = DurableSession.make(transport)
      fs.mkdirSync(path.join(dir, "worktree"))
      const { handle } = yield* sessions.start({
        attemptDir: path.join(dir, "attempt"),
        workdir: path.join(dir, "worktree"),
        argv: ["sh", "-c", "echo one; echo two; sleep 100 & sleep 100 & wait"],
        env: { PATH: "/usr/bin:/bin" }
      })
      const record = yield* sessions.decode(handle)
      yield* Effect.addFinalizer(() => Effect.sync(() => runningInGroup(record.pgid).length > 0 && process.kill(-record.pgid, "SIGKILL")))
      const first = yield* sessions.follow(record, { pollInterval: "50 millis" }).pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Chunk.toReadonlyArray(first), ["one"])
      assert.isTrue(yield* sessions.isLive(record))
      const second = yield* sessions
        .follow(record, { pollInterval: "50 millis", skipLines: 1 })
        .pipe(Stream.take(1), Stream.runCollect)
      assert.deepStrictEqual(Chunk.toReadonlyArray(second), ["two"])
      assert.strictEqual(yield* sessions.stop(record, { graceMs: 5_000 }), "Terminated")
      assert.deepStrictEqual(runningInGroup(record.pgid), [])
    }), 30_000)
})

describe.runIf(sshdAvailable)("SshTransport connection failures", () => {
  it.scopedLive("a changed host key fails closed as WorkerUnreachable, and nothing runs", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("usine-sshd-")
      const server = yield* sshServer(dir)
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "other_key")])
      const otherKey = fs.readFileSync(path.join(dir, "other_key.pub"), "utf8").trim()
      fs.writeFileSync(server.knownHosts, `[127.0.0.1]:${server.port} ${otherKey}\n`)
      const transport = yield* SshTransport.make({ destination: server.destination, sshOptions: server.options })
      const marker = path.join(dir, "ran")
      const error = yield* transport.exec({ argv: ["touch", marker] }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "WorkerUnreachable")
      assert.include(error.message, "host key")
      assert.isFalse(fs.existsSync(marker))
    }))

  it.scopedLive("a port nobody listens on is WorkerUnreachable, not a command failure", () =>
    Effect.gen(function* () {
      const transport = yield* SshTransport.make({
        destination: "root@127.0.0.1",
        sshOptions: ["-F", "/dev/null", "-p", "1", "-o", "ConnectTimeout=5"]
      })
      const error = yield* transport.exec({ argv: ["true"] }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "WorkerUnreachable")
      assert.include(error.message, "refused")
    }))
})
