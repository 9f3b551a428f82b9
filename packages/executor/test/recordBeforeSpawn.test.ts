import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Option, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import * as LocalTransport from "../src/LocalTransport"
import type { ProcStat } from "../src/ProcStat"
import * as ShellTransport from "../src/ShellTransport"
import { localShellRunner } from "./support/localShellRunner"
import { HostOperationFailed, type WorkerTransportShape } from "../src/WorkerTransport"
import { groupExists, runningInGroup } from "./groupProcesses"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" }

const injected = (host: string) => new HostOperationFailed({ host, operation: "read process", detail: "injected" })

/** The first spawn starts the agent, then fails as if `/proc` or the connection failed before the record. */
const failingAfterSpawn = (base: WorkerTransportShape): WorkerTransportShape => {
  let failed = false
  return {
    ...base,
    spawnDetached: (command) =>
      Effect.suspend(() => {
        if (failed) return base.spawnDetached(command)
        failed = true
        return base.spawnDetached(command).pipe(Effect.zipRight(Effect.fail(injected(base.host))))
      })
  }
}

/** The first spawn fails at once, but its process still starts later (a slow ssh round trip that timed out). */
const spawningLate = (base: WorkerTransportShape) => {
  const late: Array<Fiber.RuntimeFiber<ProcStat, unknown>> = []
  const transport: WorkerTransportShape = {
    ...base,
    spawnDetached: (command) =>
      Effect.suspend(() => {
        if (late.length > 0) return base.spawnDetached(command)
        late.push(Effect.runFork(Effect.sleep("300 millis").pipe(Effect.zipRight(base.spawnDetached(command)))))
        return Effect.fail(injected(base.host))
      })
  }
  return { transport, late }
}

const eventually = (condition: () => boolean) =>
  Effect.sync(condition).pipe(
    Effect.filterOrFail((holds) => holds),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeout("5 seconds"),
    Effect.isSuccess
  )

/** `keepStdinOpen` off is what the executor's turns use; on, the retry also has to make the FIFO again. */
const folder = (keepStdinOpen: boolean) => Effect.gen(function* () {
  const dir = yield* scopedTempDir()
  const workdir = path.join(dir, "worktree")
  fs.mkdirSync(workdir)
  const runs = path.join(dir, "runs")
  // Each run of the agent leaves a line: a side effect that must happen once.
  const argv = ["sh", "-c", 'echo $$ >>"$0"; exec sleep 100', runs]
  const spec = { attemptDir: path.join(dir, "attempt"), workdir, argv, env, stdin: "the prompt", keepStdinOpen }
  const runLines = () => (fs.existsSync(runs) ? fs.readFileSync(runs, "utf8").trim().split("\n") : [])
  return { spec, runLines }
})

const killAtEnd = (pgid: number) =>
  Effect.addFinalizer(() => Effect.sync(() => groupExists(pgid) && process.kill(-pgid, "SIGKILL")))

const transports: ReadonlyArray<readonly [string, () => WorkerTransportShape]> = [
  ["LocalTransport", () => LocalTransport.make()],
  ["ShellTransport through a local sh", () => ShellTransport.make(localShellRunner())]
]

describe.each(transports)("a session start that fails between spawn and record, on %s", (_, make) => {
  it.scopedLive("is adopted by the retry: one agent, recorded once", () =>
    Effect.gen(function* () {
      const { spec, runLines } = yield* folder(false)
      const sessions = DurableSession.make(failingAfterSpawn(make()))
      const first = yield* Effect.either(sessions.start(spec))
      assert.isTrue(first._tag === "Left", "the first start fails after its spawn")
      const retried = yield* sessions.start(spec)
      yield* killAtEnd(retried.record.pgid)
      assert.isTrue(yield* eventually(() => runLines().length >= 1), "the agent ran")
      yield* Effect.sleep("300 millis")
      assert.strictEqual(runLines().length, 1, "the retry started no second agent")
      assert.isTrue(yield* sessions.isLive(retried.record))
      assert.isTrue(runningInGroup(retried.record.pgid).includes(Number(runLines()[0])), "the agent that runs is the recorded one")
      const found = yield* sessions.find(spec.attemptDir)
      assert.deepStrictEqual(Option.map(found, (r) => r.pid), Option.some(retried.record.pid))
    }), 30_000)

  it.scopedLive("is fenced when its process had not claimed the folder yet: the late one never runs the agent", () =>
    Effect.gen(function* () {
      const { spec, runLines } = yield* folder(true)
      const { late, transport } = spawningLate(make())
      const sessions = DurableSession.make(transport)
      assert.isTrue((yield* Effect.either(sessions.start(spec)))._tag === "Left")
      const retried = yield* sessions.start(spec)
      yield* killAtEnd(retried.record.pgid)
      const lateStat = yield* Fiber.join(late[0]!)
      yield* killAtEnd(lateStat.pgid)
      assert.notStrictEqual(lateStat.pid, retried.record.pid)
      assert.isTrue(yield* eventually(() => runningInGroup(lateStat.pgid).length === 0), "the late wrapper exits on its own")
      assert.isTrue(yield* eventually(() => runLines().length >= 1), "the retried agent ran")
      yield* Effect.sleep("300 millis")
      assert.strictEqual(runLines().length, 1, "one agent ran")
      assert.isTrue(runningInGroup(retried.record.pgid).includes(Number(runLines()[0])), "in the recorded group")
      assert.isTrue(yield* sessions.isLive(retried.record))
    }), 30_000)
})
