import { writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { benchRepository, benchSim, freePort, usineYaml } from "./benchWorld"
import { startDaemon } from "./DaemonProcess"
import { ledgerTimeline } from "./ledgerTimeline"
import { procSample } from "./procSample"
import { pullRequestPacing } from "./pullRequestPacing"

const REPOSITORY = "acme/widgets"

/** How long the daemon's idle CPU is sampled after the last pull request. */
const IDLE_MS = 5000

const load1 = () => loadavg()[0] ?? 0

/**
 * One row: `usine up` as a process against a fresh emulator holding `items` labeled issues, `slots` Worker slots,
 * until `items` pull requests are open; then SIGTERM, and the ledger read for where each Run's time went.
 */
export const measureDaemon = (slots: number, items: number) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir("usine-bench-throughput-")
    const { sim, token } = yield* benchSim
    yield* benchRepository(sim, "acme", "widgets", items)
    writeFileSync(
      join(dir, "usine.yaml"),
      usineYaml({ apiUrl: sim.url, token, repository: REPOSITORY, boardPort: yield* freePort, workspaces: join(dir, "workspaces"), slots })
    )
    const loadBefore = load1()
    const spawnedAt = Date.now()
    const daemon = yield* startDaemon(dir)
    const up = yield* daemon.waitFor(/msg="usine is up as /)
    const atUp = procSample(daemon.pid)
    // Pull requests as the emulator answered them: its request log, read every 100 ms.
    const opened = () =>
      Effect.map(Effect.promise(() => sim.control.requestLog()), (log) =>
        log.filter((r) => r.method === "POST" && r.path.startsWith(`/repos/${REPOSITORY}/pulls`) && r.status === 201)
      )
    const deadline = Date.now() + 15 * 60_000
    let pulls = yield* opened()
    const loads: Array<number> = [load1()]
    let peakRssMb = atUp?.peakRssMb ?? 0
    while (pulls.length < items) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`${pulls.length} of ${items} pull requests after 15 minutes:\n${daemon.output().slice(-4000)}`)
      // A no-op agent never fails: a failed Attempt means the daemon (or this bench) is broken, not slow.
      const failed = /msg="attempt \d+ failed[^\n]*/.exec(daemon.output())
      if (failed !== null) return yield* Effect.dieMessage(`an Attempt failed: ${failed[0]}`)
      yield* Effect.sleep("100 millis")
      pulls = yield* opened()
      const sample = procSample(daemon.pid)
      if (sample !== undefined) peakRssMb = Math.max(peakRssMb, sample.peakRssMb)
      if (loads.length < (Date.now() - up.at) / 5000) loads.push(load1())
    }
    const doneAt = Date.now()
    const atDone = procSample(daemon.pid)
    const log = yield* Effect.promise(() => sim.control.requestLog())
    // Idle, still polling every second: what the daemon costs with nothing to do, to set apart from the Runs' cost.
    yield* Effect.sleep(IDLE_MS)
    const idle = procSample(daemon.pid)
    const exitCode = yield* daemon.stop
    const pacing = yield* Effect.promise(() => pullRequestPacing(sim, token, REPOSITORY, log))
    const { runs, states } = ledgerTimeline(join(dir, "state", "ledger.db"))
    const firstSeen = Math.min(...runs.map((r) => r.receivedAt))
    const lastPull = Math.max(...pulls.map((p) => p.receivedAtMs))
    const requests = log.filter((r) => r.receivedAtMs >= firstSeen && r.receivedAtMs <= lastPull)
    const routes: Record<string, number> = {}
    for (const r of requests) {
      const route = `${r.method} ${r.path.replace(/\?.*$/, "").replace(/\/\d+(?=\/|$)/g, "/{n}")}`
      routes[route] = (routes[route] ?? 0) + 1
    }
    return {
      slots,
      items,
      exitCode,
      states,
      runs,
      /** Per pull request: its POST after its push (the GitHub client's pacing of writes, plus the bare work between). */
      pacing,
      /** The daemon's start (spawn) → its "usine is up" line. */
      startupMs: up.at - spawnedAt,
      /** The first poll that saw the Items (earliest Event `received_at`) → the last pull request answered 201. */
      windowMs: lastPull - firstSeen,
      /** "usine is up" → the bench saw the last pull request in the emulator's log. */
      fromUpMs: doneAt - up.at,
      cpuMs: atDone !== undefined && atUp !== undefined ? atDone.cpuMs - atUp.cpuMs : Number.NaN,
      childCpuMs: atDone !== undefined && atUp !== undefined ? atDone.childCpuMs - atUp.childCpuMs : Number.NaN,
      /** CPU of the idle daemon (polling each second), % of one core. */
      idleCpuPct: idle !== undefined && atDone !== undefined ? (100 * (idle.cpuMs - atDone.cpuMs)) / IDLE_MS : Number.NaN,
      startupCpuMs: atUp?.cpuMs ?? Number.NaN,
      rssMb: atDone?.rssMb ?? Number.NaN,
      peakRssMb,
      loadBefore,
      loadMax: Math.max(...loads, load1()),
      requests: requests.length,
      routes
    }
  }).pipe(Effect.scoped)

export type DaemonRow = Effect.Effect.Success<ReturnType<typeof measureDaemon>>
