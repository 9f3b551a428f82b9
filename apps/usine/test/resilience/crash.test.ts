import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Option } from "effect"
import { scopedDir } from "../support/scopedSim"
import { attemptFolders } from "./support/attemptFolders"
import { checkAfterRestart, checkLedger } from "./support/checkInvariants"
import { classifyKill } from "./support/classifyKill"
import { awaitPhase, isPullsPost, PHASES } from "./support/crashPhases"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { readLedger } from "./support/LedgerSnapshot"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { seededRandom } from "./support/seededRandom"
import { settleAfterRestart } from "./support/settle"
import { killDaemon, startDaemon } from "./support/startDaemon"
import { stirIssues } from "./support/stirIssues"
import { waitFor, waitUntil } from "./support/waitUntil"

const FULL = process.env["USINE_RESILIENCE"] === "full"
const CYCLES = Number(process.env["USINE_RESILIENCE_CYCLES"] ?? (FULL ? 200 : 8))
const SEED = Number(process.env["USINE_RESILIENCE_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
const LOOP = "crash"
const LABEL = "go"

describe("resilience: crash", () => {
  it.scopedLive(`SIGKILL in every lifecycle phase (${CYCLES} cycles): nothing lost, nothing done twice, then a clean drain`, () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const root = join(dir, "workspaces")
      const ledgerFile = join(dir, "state", "ledger.db")
      yield* writeResilienceConfig(dir, world, {
        agents: { quick: agent("ok", { arg: 1_200 }) },
        workers: { local: { root, slots: 3 } },
        loops: [{ name: LOOP, label: LABEL, agent: "quick", verify: ["sleep 0.4"] }]
      })
      const table = new FaultTable(`crash loop: ${CYCLES} cycles, seed ${SEED}`)
      const random = seededRandom(SEED)
      const matching = new Map<number, ReadonlyArray<string>>()
      let openAtKill: ReadonlyArray<string> = []
      const landedIn = new Set<string>()
      let checkedRuns = 0

      const started = yield* Clock.currentTimeMillis
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        const phase = PHASES[(cycle - 1) % PHASES.length] ?? "polling"
        yield* Effect.scoped(
          Effect.gen(function* () {
            const daemon = yield* startDaemon(dir)
            const recovering = phase === "recovering after a restart"
            if (!recovering) {
              yield* settleAfterRestart({ ledgerFile, openAtKill, matching, table, context: `cycle ${cycle}` })
              openAtKill = []
            }
            const fresh = recovering ? 0 : yield* stirIssues({ world, label: LABEL, random, matching, loop: LOOP, table, cycle })
            const armed = yield* awaitPhase(phase, { world, root, ledgerFile, random, fresh })
            yield* killDaemon(daemon)
            const logAtKill = (yield* world.botRequests).length
            const ledger = readLedger(ledgerFile)
            const folders = attemptFolders(root)
            const pullsAtKill = yield* world.pulls
            table.inject(`SIGKILL aimed at: ${phase}`)
            for (const fault of armed) table.inject(fault)
            // A request held by a fault finishes after the daemon died: wait it out before reading what it did.
            if (armed.length > 0) yield* Effect.sleep("1700 millis")
            yield* world.call(() => world.control.clearFaults())
            const pullPostsAfterKill = (yield* world.botRequests).slice(logAtKill).filter(isPullsPost).length
            for (const landed of classifyKill({ ledger, folders, pulls: pullsAtKill, pullPostsAfterKill, matching: [...matching.keys()] })) {
              table.inject(`SIGKILL landed in: ${landed}`)
              landedIn.add(landed)
            }
            checkedRuns += ledger.runs.length
            const open = ledger.attempts.filter((a) => a.outcome === undefined).map((a) => a.id)
            openAtKill = [...new Set([...openAtKill, ...open])]
            for (const result of checkLedger(ledger, yield* world.pulls)) table.record(result, `cycle ${cycle} (${phase})`)
          })
        )
      }

      // The kills must have landed where they aimed, and the invariants must have had Runs to hold on.
      const missed = CYCLES >= 4 * PHASES.length ? PHASES.filter((phase) => phase !== "recovering after a restart" && !landedIn.has(phase)) : []
      table.assert("every aimed phase was hit by a kill", missed.length === 0, `never hit: ${missed.join(", ")}`, landedIn.size)
      table.assert("the kills landed in several phases", landedIn.size >= Math.min(4, CYCLES - 1), `landed in: ${[...landedIn].join(", ")}`, landedIn.size)
      table.assert("the invariants were checked on Runs", checkedRuns >= CYCLES, `${checkedRuns} Run rows over ${CYCLES} cycles`, checkedRuns)
      table.note(`${CYCLES} crash cycles in ${((yield* Clock.currentTimeMillis) - started) / 1000} s`)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const daemon = yield* startDaemon(dir)
          yield* settleAfterRestart({ ledgerFile, openAtKill, matching, table, context: "final start" })
          const ended = yield* waitUntil(
            Effect.sync(() => {
              const ledger = readLedger(ledgerFile)
              return ledger.runs.every((r) => ["Succeeded", "Failed", "Canceled"].includes(r.state)) ? Option.some(ledger) : Option.none()
            }),
            "90 seconds",
            "250 millis"
          )
          const last = Option.getOrElse(ended, () => readLedger(ledgerFile))
          table.assert("every Run reaches an end after the last restart", Option.isSome(ended), `open: ${last.runs.filter((r) => !["Succeeded", "Failed", "Canceled"].includes(r.state)).map((r) => `${r.id} ${r.state}`).join(", ")}`, last.runs.length)
          const pulls = yield* world.pulls
          const succeeded = last.runs.filter((r) => r.state === "Succeeded")
          const withoutPull = succeeded.filter((r) => !pulls.some((p) => p.head === `usine/${r.loop}/${r.number}-${r.id.slice(0, 8)}`))
          table.assert("every Succeeded Run has its pull request", withoutPull.length === 0, `no pull request for ${withoutPull.map((r) => r.id).join(", ")}`, succeeded.length)
          table.inject("Runs succeeded by the end", succeeded.length)
          table.inject("Runs failed by the end", last.runs.filter((r) => r.state === "Failed").length)

          for (let i = 0; i < 3; i++) {
            yield* world.call(() => world.control.createIssue({ repo: "acme/widgets", title: `drain ${i}`, labels: [LABEL] }))
          }
          yield* waitFor(() => attemptFolders(root).some((f) => f.agentRunning), "30 seconds")
          yield* drainDaemon(daemon, dir, table, { label: "SIGTERM with Attempts running" })
        })
      )
      const final = readLedger(ledgerFile)
      for (const result of checkLedger(final, yield* world.pulls)) table.record(result, "after the drain")
      table.record(checkAfterRestart(final, openAtKill), "after the drain")
      table.assert("no Attempt left open by the drain", final.attempts.every((a) => a.outcome !== undefined), "an Attempt is open", final.attempts.length)
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), (CYCLES * 40 + 300) * 1_000)
})
