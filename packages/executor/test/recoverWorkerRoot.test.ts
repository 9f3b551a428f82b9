import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schedule, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DurableSession from "../src/DurableSession"
import * as LocalTransport from "../src/LocalTransport"
import { type LeftWorkspace, recoverWorkerRoot } from "../src/recoverWorkerRoot"
import * as Workspace from "../src/Workspace"
import { makeOrigin } from "./gitOrigin"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const transport = LocalTransport.make()
const sessions = DurableSession.make(transport)
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" }

describe("recoverWorkerRoot", () => {
  it.scopedLive("keeps live sessions, salvages then removes the rest, and keeps what failed to salvage", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const origin = yield* makeOrigin(dir)
      const root = path.join(dir, "worker")
      const workspace = yield* Workspace.make({ transport, root })
      const left = (attemptId: string) =>
        workspace
          .acquire({ attemptId, repository: "acme/widgets", cloneUrl: origin.bare, ref: "main" })
          .pipe(Effect.tap((ws) => ws.keep))

      const live = yield* left("aa/main/1")
      const running = yield* sessions.start({ attemptDir: live.attemptDir, workdir: live.worktree, argv: ["sleep", "100"], env })
      yield* Effect.addFinalizer(() => sessions.stop(running.record, { graceMs: 500 }).pipe(Effect.ignore))

      const ended = yield* left("bb/main/1")
      const finished = yield* sessions.start({
        attemptDir: ended.attemptDir,
        workdir: ended.worktree,
        argv: ["sh", "-c", "echo work > file; echo done"],
        env
      })
      yield* sessions.follow(finished.record, { pollInterval: "10 millis" }).pipe(Stream.runDrain)

      const neverStarted = yield* left("cc/main/1")
      const unlucky = yield* left("dd/main/1")

      const seen: Array<LeftWorkspace> = []
      const recovery = yield* recoverWorkerRoot({
        transport,
        workspace,
        salvage: (entry) => {
          seen.push(entry)
          if (entry.attemptDir === unlucky.attemptDir) return Effect.fail("push refused")
          return Effect.succeed(Option.isSome(entry.session))
        }
      })

      assert.deepStrictEqual(recovery, {
        kept: [live.attemptDir],
        salvaged: [ended.attemptDir],
        removed: [ended.attemptDir, neverStarted.attemptDir],
        failed: [unlucky.attemptDir]
      })
      const endedSeen = seen.find((entry) => entry.attemptDir === ended.attemptDir)
      assert.deepStrictEqual(Option.map(endedSeen?.status ?? Option.none(), (s) => s._tag), Option.some("Exited"))
      assert.isFalse(seen.some((entry) => entry.attemptDir === live.attemptDir), "a live session is never salvaged")
      assert.isTrue(fs.existsSync(path.join(live.worktree, "README")))
      assert.isTrue(yield* sessions.isLive(running.record))
      assert.isFalse(fs.existsSync(ended.attemptDir))
      assert.isFalse(fs.existsSync(neverStarted.attemptDir))
      assert.isTrue(fs.existsSync(unlucky.worktree))
      // Attempts are clones of the mirror, not its worktrees: the mirror keeps nothing of theirs (ADR 0053).
      assert.isFalse(fs.existsSync(path.join(root, "mirrors", "acme__widgets.git", "worktrees")))
      assert.isTrue(fs.existsSync(path.join(live.worktree, ".git", "HEAD")), "the live Attempt's own .git stays")
    }))

  it.scopedLive("keeps a folder whose live session is in turn-1/ (the executor's layout) or was never recorded", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir()
      const origin = yield* makeOrigin(dir)
      const root = path.join(dir, "worker")
      const workspace = yield* Workspace.make({ transport, root })
      const left = (attemptId: string) =>
        workspace
          .acquire({ attemptId, repository: "acme/widgets", cloneUrl: origin.bare, ref: "main" })
          .pipe(Effect.tap((ws) => ws.keep))

      const turned = yield* left("bb/main/1")
      const turn = path.join(turned.attemptDir, "turn-1")
      const running = yield* sessions.start({ attemptDir: turn, workdir: turned.worktree, argv: ["sleep", "100"], env })
      yield* Effect.addFinalizer(() => sessions.stop(running.record, { graceMs: 500 }).pipe(Effect.ignore))

      // A daemon killed between the spawn and the record: the wrapper's claim is all that names the agent.
      const unrecorded = yield* left("cc/main/1")
      const lost = yield* sessions.start({
        attemptDir: path.join(unrecorded.attemptDir, "turn-2"),
        workdir: unrecorded.worktree,
        argv: ["sleep", "100"],
        env
      })
      yield* Effect.addFinalizer(() => sessions.stop(lost.record, { graceMs: 500 }).pipe(Effect.ignore))
      // Once its wrapper claimed the folder (before that, recovery fences the start and nothing runs).
      const claim = path.join(unrecorded.attemptDir, "turn-2", "session.claim-1")
      yield* Effect.sync(() => fs.existsSync(claim)).pipe(
        Effect.repeat({ until: (exists) => exists, schedule: Schedule.spaced("10 millis") }),
        Effect.timeout("5 seconds")
      )
      fs.rmSync(path.join(unrecorded.attemptDir, "turn-2", "session.json"))

      const recovery = yield* recoverWorkerRoot({ transport, workspace, salvage: () => Effect.succeed(false) })
      assert.deepStrictEqual(recovery, { kept: [turned.attemptDir, unrecorded.attemptDir], salvaged: [], removed: [], failed: [] })
      assert.isTrue(yield* sessions.isLive(running.record))
      assert.isTrue(yield* sessions.isLive(lost.record))
      const adopted = yield* sessions.find(path.join(unrecorded.attemptDir, "turn-2"))
      assert.deepStrictEqual(Option.map(adopted, (r) => r.pid), Option.some(lost.record.pid), "recorded from its claim")
      assert.isTrue(fs.existsSync(path.join(turned.worktree, "README")))
    }))
})
