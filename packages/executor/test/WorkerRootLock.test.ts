import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Schedule, Scope } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileLockScript } from "../src/holdFileLock"
import * as LocalTransport from "../src/LocalTransport"
import * as ShellTransport from "../src/ShellTransport"
import { localShellRunner } from "./support/localShellRunner"
import * as SshTransport from "../src/SshTransport"
import type { WorkerTransportShape } from "../src/WorkerTransport"
import { acquireWorkerRootLock, rootLockFile } from "../src/WorkerRootLock"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { sshdAvailable, sshServer } from "./sshServer"

/** A daemon in its own process: it holds the lock the way `LocalTransport` does, until it is killed. */
const otherDaemon = (file: string, note: string) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      const program = `const c = require("node:child_process").spawn("/bin/sh", ["-c", process.argv[1], "usine-lock", process.argv[2], process.argv[3]], { detached: true, stdio: ["pipe", "inherit", "inherit"] }); setInterval(() => {}, 1000)`
      const child = spawn(process.execPath, ["-e", program, fileLockScript, file, note], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("usine-locked")) resume(Effect.succeed(child.pid!))
      })
    }),
    (pid) => Effect.try(() => process.kill(pid, "SIGKILL")).pipe(Effect.ignore)
  )

const transports: ReadonlyArray<readonly [string, () => WorkerTransportShape]> = [
  ["LocalTransport", () => LocalTransport.make("worker-host")],
  ["ShellTransport through a local sh", () => ShellTransport.make(localShellRunner("worker-host"))]
]

describe.each(transports)("the Worker root lock on %s", (_, make) => {
  it.scopedLive("is held by one daemon at a time; the second is refused with the holder's note", () =>
    Effect.gen(function* () {
      const transport = make()
      const root = path.join(yield* scopedTempDir(), "workspaces")
      const first = yield* Scope.make()
      yield* acquireWorkerRootLock({ worker: "local", transport, root, note: "usine process 1 on a (a/usine.yaml)" }).pipe(
        Scope.extend(first)
      )
      assert.include(fs.readFileSync(rootLockFile(root), "utf8"), "usine process 1 on a")
      const refused = yield* Effect.flip(
        acquireWorkerRootLock({ worker: "local", transport, root, note: "usine process 2 on b (b/usine.yaml)" })
      )
      assert.strictEqual(refused._tag, "WorkerRootLocked")
      assert.strictEqual(
        refused.message,
        `the Worker local's root ${root} on worker-host is in use by usine process 1 on a (a/usine.yaml); ` +
          "only one usine daemon may use a Worker root: stop the other one, or give this Worker another root"
      )
      yield* Scope.close(first, Exit.void)
      yield* acquireWorkerRootLock({ worker: "local", transport, root, note: "usine process 2 on b (b/usine.yaml)" })
      assert.include(fs.readFileSync(rootLockFile(root), "utf8"), "usine process 2 on b")
    }), 30_000)

  it.scopedLive("dies with its daemon: a killed daemon leaves no stale lock", () =>
    Effect.gen(function* () {
      const transport = make()
      const root = path.join(yield* scopedTempDir(), "workspaces")
      fs.mkdirSync(root)
      const daemon = yield* Scope.make()
      const pid = yield* otherDaemon(rootLockFile(root), "usine process killed").pipe(Scope.extend(daemon))
      const refused = yield* Effect.flip(acquireWorkerRootLock({ worker: "local", transport, root, note: "me" }))
      assert.strictEqual(refused._tag, "WorkerRootLocked")
      process.kill(pid, "SIGKILL")
      const taken = yield* acquireWorkerRootLock({ worker: "local", transport, root, note: "me" }).pipe(
        Effect.retry({ while: (e) => e._tag === "WorkerRootLocked", schedule: Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds")) }),
        Effect.option
      )
      assert.isTrue(Option.isSome(taken), "the lock is free once the killed daemon's pipe closed")
      yield* Scope.close(daemon, Exit.void)
    }), 30_000)
})

describe.runIf(sshdAvailable)("the Worker root lock through OpenSSH on 127.0.0.1", () => {
  it.scopedLive("is held by a process on the host for the scope, and refuses a second daemon", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("usine-sshd-")
      const server = yield* sshServer(dir)
      const transport = yield* SshTransport.make({ destination: server.destination, sshOptions: server.options })
      const root = path.join(dir, "workspaces")
      const held = yield* Scope.make()
      yield* acquireWorkerRootLock({ worker: "remote", transport, root, note: "usine process 1 on a" }).pipe(Scope.extend(held))
      const refused = yield* Effect.flip(acquireWorkerRootLock({ worker: "remote", transport: LocalTransport.make(), root, note: "2" }))
      assert.strictEqual(refused._tag, "WorkerRootLocked")
      assert.include(refused.message, "in use by usine process 1 on a")
      yield* Scope.close(held, Exit.void)
      const again = yield* acquireWorkerRootLock({ worker: "remote", transport: LocalTransport.make(), root, note: "2" }).pipe(
        Effect.retry({ while: (e) => e._tag === "WorkerRootLocked", schedule: Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds")) }),
        Effect.either
      )
      assert.strictEqual(again._tag, "Right", "closing the scope ends the remote holder")
    }), 30_000)
})
