import { rmSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { REPOSITORY } from "../support/daemonConfig"
import { board } from "../support/http"
import { scopedDir } from "../support/scopedSim"
import { checkLedger } from "./support/checkInvariants"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { queryLedger, readLedger } from "./support/LedgerSnapshot"
import { isAlive } from "./support/ourProcesses"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { fillDisk, scopedTmpfs } from "./support/scopedTmpfs"
import { startDaemon } from "./support/startDaemon"
import { waitFor } from "./support/waitUntil"

const ENDED = ["Succeeded", "Failed", "Canceled"]

describe("resilience: Worker faults", () => {
  it.scopedLive("an agent that fails, hangs, floods or writes garbage, and a full disk: each Attempt ends with a clear outcome, the daemon stays up", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const ledgerFile = join(dir, "state", "ledger.db")
      const table = new FaultTable("Worker faults")
      const tiny = yield* scopedTmpfs(join(dir, "tiny"), "2m")
      if (Either.isLeft(tiny)) table.inject(`full disk skipped: mount failed (${tiny.left})`)
      const local = ["local"]
      const loops = [
        { name: "fails", label: "fails", agent: "fails", workers: local },
        { name: "hangs", label: "hangs", agent: "hangs", stallMinutes: 0.25, workers: local },
        { name: "floods", label: "floods", agent: "floods", workers: local },
        { name: "garbage", label: "garbage", agent: "garbage", workers: local },
        ...(Either.isRight(tiny) ? [{ name: "disk", label: "disk", agent: "quick", workers: ["tiny"] }] : [])
      ]
      yield* writeResilienceConfig(dir, world, {
        agents: {
          quick: agent("ok", { arg: 100 }),
          fails: agent("fail"),
          // Its "once" marker in its worktree: the sandbox lets it write nothing else; the stalled Attempt's salvage carries it on.
          hangs: agent("hang", { arg: "hung-once" }),
          floods: agent("flood", { arg: 8 * 1024 * 1024 }),
          garbage: agent("badjson", { harness: "codex" })
        },
        workers: {
          local: { root: join(dir, "workspaces"), slots: 4 },
          ...(Either.isRight(tiny) ? { tiny: { root: tiny.right, slots: 1 } } : {})
        },
        loops
      })
      if (Either.isRight(tiny)) table.inject(`workspace root on a 2 MiB tmpfs filled (${fillDisk(join(tiny.right, "filler"))} bytes)`)

      const daemon = yield* startDaemon(dir)
      const numbers = new Map<string, number>()
      for (const loop of loops) {
        const issue = yield* world.call(() => world.control.createIssue({ repo: REPOSITORY, title: `worker fault: ${loop.name}`, labels: [loop.label] }))
        numbers.set(loop.name, issue.number)
      }
      table.inject("agent exits 7")
      table.inject("agent hangs silently (stall_minutes: 0.25), once")
      table.inject("agent floods 8 MiB of output")
      table.inject("codex harness fed lines that are not JSON")

      const runOf = (loop: string) => readLedger(ledgerFile).runs.find((r) => r.loop === loop)
      const attemptsOf = (loop: string) => {
        const ledger = readLedger(ledgerFile)
        const run = ledger.runs.find((r) => r.loop === loop)
        return ledger.attempts.filter((a) => a.runId === run?.id).sort((a, b) => a.number - b.number)
      }
      const transcript = (loop: string) =>
        queryLedger(ledgerFile, "SELECT t.kind, t.text FROM usine_transcript_rows t JOIN usine_attempts a ON a.id = t.attempt_id JOIN usine_runs r ON r.id = a.run_id WHERE r.loop = ?", loop)
          .map((row) => ({ kind: String(row["kind"]), text: String(row["text"]) }))
      yield* waitFor(() => loops.every((l) => ENDED.includes(runOf(l.name)?.state ?? "")), "180 seconds", "500 millis")

      const failed = attemptsOf("fails")
      table.assert("a failing agent: AgentFailure naming its exit, no retry", failed.length === 1 && failed[0]?.outcome?.failure?._tag === "AgentFailure" && /7/.test(failed[0]?.outcome?.failure?.reason ?? ""), JSON.stringify(failed.map((a) => a.outcome)))
      table.assert("a failing agent's output is in the transcript", transcript("fails").some((r) => r.text.includes("giving up on purpose")), "its last words are missing")
      const hung = attemptsOf("hangs")
      table.assert("a hung agent: stalled as InfraFailure, the next Attempt succeeds", hung.length === 2 && hung[0]?.outcome?.failure?._tag === "InfraFailure" && /stall/i.test(hung[0]?.outcome?.failure?.reason ?? "") && hung[1]?.outcome?._tag === "Succeeded", JSON.stringify(hung.map((a) => a.outcome)))
      const flood = attemptsOf("floods")
      table.assert("a flooding agent: its Attempt succeeds", flood.length === 1 && flood[0]?.outcome?._tag === "Succeeded", JSON.stringify(flood.map((a) => a.outcome)))
      const garbage = attemptsOf("garbage")
      table.assert("invalid JSON: error rows with the raw text, the Attempt succeeds", garbage[0]?.outcome?._tag === "Succeeded" && transcript("garbage").some((r) => r.kind === "error" && r.text.includes("this is not JSON")), JSON.stringify(garbage.map((a) => a.outcome)))
      table.assert("the daemon survived every Worker fault", isAlive(daemon.pid) && daemon.usine.child.exitCode === null, daemon.usine.stderr().slice(-500))

      if (Either.isRight(tiny)) {
        const disk = attemptsOf("disk")
        table.assert("a full disk: InfraFailure naming the disk, three Attempts, the Run fails", disk.length === 3 && disk.every((a) => a.outcome?.failure?._tag === "InfraFailure") && runOf("disk")?.state === "Failed" && disk.some((a) => /No space left|ENOSPC/i.test(JSON.stringify(a.outcome))), JSON.stringify(disk.map((a) => a.outcome)))
        rmSync(join(tiny.right, "filler"))
        table.inject("disk freed, operator retry from the Board")
        yield* board(daemon.board, `/runs/${runOf("disk")?.id}/retry`, "POST")
        yield* waitFor(() => runOf("disk")?.state === "Succeeded", "60 seconds", "250 millis")
        table.assert("after the disk is freed, the operator's retry succeeds", runOf("disk")?.state === "Succeeded", `the Run is ${runOf("disk")?.state}`)
      }

      const ledger = readLedger(ledgerFile)
      for (const result of checkLedger(ledger, yield* world.pulls)) table.record(result)
      yield* drainDaemon(daemon, dir, table, { label: "SIGTERM once idle" })
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), 300_000)
})
