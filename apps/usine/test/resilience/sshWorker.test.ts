import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { sshdAvailable } from "../../../../packages/executor/test/sshServer"
import { REPOSITORY } from "../support/daemonConfig"
import { scopedDir } from "../support/scopedSim"
import { attemptFolders } from "./support/attemptFolders"
import { checkLedger } from "./support/checkInvariants"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { loopbackSshHost } from "./support/loopbackSshHost"
import { readLedger } from "./support/LedgerSnapshot"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { startDaemon } from "./support/startDaemon"
import { waitFor } from "./support/waitUntil"

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

/**
 * Cuts every connection of the test's sshd (the processes its listener forked), as a network drop would: the
 * daemon's shared ssh connection dies, the listener stays, so the next connection succeeds.
 */
const dropConnections = (sshConfig: string): number => {
  const procs = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  // The listener rewrites its command line (`sshd: /usr/sbin/sshd -D -e -f <config> [listener] ...`).
  const listeners = procs.filter((pid) => read(`/proc/${pid}/cmdline`).includes(`-f ${sshConfig}`))
  const sessions = procs.filter((pid) => listeners.includes(/^\d+ \(.*\) \S (\d+)/.exec(read(`/proc/${pid}/stat`))?.[1] ?? ""))
  for (const pid of sessions) process.kill(Number(pid), "SIGKILL")
  return sessions.length
}

describe("resilience: an SSH Worker that drops mid-Attempt", () => {
  it.scopedLive.skipIf(!sshdAvailable)("the connection dies three times while the agent runs: the Attempt goes on, one pull request", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const ledgerFile = join(dir, "state", "ledger.db")
      const table = new FaultTable("SSH Worker drops")
      const ssh = yield* loopbackSshHost(dir, "resilience-worker")
      const remoteRoot = join(dir, "remote-root")
      yield* writeResilienceConfig(dir, world, {
        agents: { slow: agent("slow", { arg: 6_000 }) },
        workers: { remote: { root: remoteRoot, slots: 1, host: "resilience-worker" } },
        loops: [{ name: "remote", label: "go", agent: "slow", workers: ["remote"] }]
      })
      const daemon = yield* startDaemon(dir, { env: ssh.env })
      const issue = yield* world.call(() => world.control.createIssue({ repo: REPOSITORY, title: "over ssh", labels: ["go"] }))
      table.assert("the agent starts on the SSH Worker", yield* waitFor(() => attemptFolders(remoteRoot).some((f) => f.agentRunning), "60 seconds"), "it never ran")
      let cut = 0
      for (let i = 0; i < 3; i++) {
        cut += dropConnections(ssh.sshConfig)
        table.inject("every ssh connection of the Worker cut")
        yield* Effect.sleep("1500 millis")
      }
      table.assert("the drops cut live connections", cut > 0, "no connection was open to cut")
      const runOf = () => readLedger(ledgerFile).runs.find((r) => r.number === issue.number)
      yield* waitFor(() => ["Succeeded", "Failed", "Canceled"].includes(runOf()?.state ?? ""), "120 seconds", "250 millis")
      const ledger = readLedger(ledgerFile)
      const attempts = ledger.attempts.filter((a) => a.runId === runOf()?.id).sort((a, b) => a.number - b.number)
      table.inject(`Attempts the Run needed: ${attempts.length}`)
      table.assert("the Run succeeds despite the drops", runOf()?.state === "Succeeded", JSON.stringify(attempts.map((a) => a.outcome)))
      table.assert(
        "an Attempt lost to a drop is an InfraFailure, never an agent failure",
        attempts.slice(0, -1).every((a) => a.outcome?.failure?._tag === "InfraFailure"),
        JSON.stringify(attempts.map((a) => a.outcome))
      )
      for (const result of checkLedger(ledger, yield* world.pulls)) table.record(result)
      yield* drainDaemon(daemon, dir, table, { label: "SIGTERM once idle", ignore: (cmdline) => /^(\/usr\/sbin\/sshd|sshd:)/.test(cmdline) })
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), 240_000)
})
