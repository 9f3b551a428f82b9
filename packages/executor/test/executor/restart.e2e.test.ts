import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Attempt } from "@usine/core/attempt/Attempt"
import { Run } from "@usine/core/run/Run"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import { SessionRecord } from "../../src/DurableSession/SessionRecord"
import { runningInGroup } from "../groupProcesses"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const WORKSPACE = fileURLToPath(new URL("../../../../", import.meta.url))
const DAEMON = fileURLToPath(new URL("./fixtures/daemon.ts", import.meta.url))
const LINES = 30

const readRows = (file: string): Array<TranscriptEntry> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as TranscriptEntry)
    : []

/** Starts the daemon process; the scope kills it if the test did not. */
const startDaemon = (input: object) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      // One process, not the tsx launcher and its child: the SIGKILL must hit the daemon itself.
      const child = spawn(process.execPath, ["--import", "tsx", DAEMON, JSON.stringify(input)], {
        cwd: WORKSPACE,
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)))
      return { child, exited, stderr: () => stderr }
    }),
    ({ child }) => Effect.sync(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")))
  )

describe("WorkerExecutor across a daemon restart", () => {
  it.scopedLive(
    "SIGKILL of the daemon while the agent runs: the next one reattaches, with no gap and no duplicate row, and one pull request results",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        // The agent waits at its end for this file: it is surely still running when its daemon dies.
        const gate = path.join(t.dir, "go")
        const slow = scriptedAgent("slow", { LINES_TOTAL: String(LINES), LINE_DELAY: "0.1", GATE: gate })
        const run = makeRun("slow")
        const attempt = makeAttempt(run, 1)
        const rowsFile = path.join(t.dir, "rows.jsonl")
        const sessionFile = path.join(t.dir, "session.json")
        const daemon = yield* startDaemon({
          apiUrl: t.sim.url,
          token: t.account.token,
          root: t.root,
          agents: { slow },
          run: Schema.encodeSync(Run)(run),
          attempt: Schema.encodeSync(Attempt)(attempt),
          policy: policy(),
          rowsFile,
          sessionFile
        })
        const deadline = Date.now() + 30_000
        while (readRows(rowsFile).filter((row) => row.kind === "assistant").length < 5) {
          if (Date.now() > deadline) assert.fail(`the first daemon never streamed: ${daemon.stderr()}`)
          yield* Effect.sleep("20 millis")
        }
        daemon.child.kill("SIGKILL")
        assert.strictEqual(yield* Effect.promise(() => daemon.exited), "SIGKILL")

        const stored = readRows(rowsFile)
        const { pgid } = Schema.decodeSync(Schema.parseJson(SessionRecord))(fs.readFileSync(sessionFile, "utf8"))
        assert.isAbove(runningInGroup(pgid).length, 0, "the agent outlived its daemon")
        assert.isBelow(stored.filter((row) => row.kind === "assistant").length, LINES, "the kill landed mid-stream")
        assert.isTrue(yield* t.executor.isLive(attempt))

        const log = recorder()
        log.rows.push(...stored)
        const following = yield* Effect.fork(t.executor.execute(log.request(run, attempt, policy(), true)))
        while (log.rows.length === stored.length) yield* Effect.sleep("20 millis")
        fs.writeFileSync(gate, "")
        const outcome = yield* Fiber.join(following)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))

        const texts = log.rows.map((row) => row.text)
        const expected = Array.from({ length: LINES }, (_, i) => `line ${i + 1}`)
        assert.deepStrictEqual(log.rows.filter((row) => row.kind === "assistant").map((row) => row.text), expected)
        assert.match(texts[0] ?? "", /^workspace on local at [0-9a-f]{8} \(main\)/)
        assert.deepStrictEqual(texts.slice(1, 2), ["agent turn 1 started"])
        assert.deepStrictEqual(texts.slice(2 + LINES), [
          "agent turn 1 exited with code 0",
          `pushed 1 commit to usine/start-dev/1-${run.id.slice(0, 8)}; pull request #2 opened`
        ])
        assert.strictEqual(log.rows.length, 2 + LINES + 2)
        assert.strictEqual((yield* t.pulls).length, 1)
      }).pipe(Effect.provide(simLayer)),
    90_000
  )
})
