import { Effect } from "effect"
import type { StartedSim } from "@usine/github-sim/startSim"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { startDaemon } from "../throughput/DaemonProcess"
import { procSample } from "../throughput/procSample"
import { boardAnswers } from "./boardAnswers"
import { idleWorld } from "./idleWorld"

/** One start of `usine up` on a fresh folder and ledger: spawn → the Board answers, and → "usine is up". */
export const measureStart = (sim: StartedSim, token: string, usine: ReadonlyArray<string>, prefix: string) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir("usine-bench-footprint-")
    const port = yield* idleWorld(sim, token, dir, prefix)
    const spawned = Date.now()
    const daemon = yield* startDaemon(dir, usine)
    const answered = yield* boardAnswers(port)
    const up = yield* daemon.waitFor(/msg="usine is up as /)
    const exitCode = yield* daemon.stop
    return { boardMs: answered - spawned, upMs: up.at - spawned, exitCode }
  }).pipe(Effect.scoped)

/** A sample of the idle daemon: seconds since its spawn, RSS, and its CPU so far. */
export interface IdleSample {
  readonly seconds: number
  readonly rssMb: number
  readonly cpuMs: number
}

/**
 * `usine up` left idle for `minutes` on a fresh folder (three repositories, nothing labelled): its RSS and CPU every
 * `everySeconds`, each sample printed to stderr as it is taken, so a run cut short keeps what it saw.
 */
export const measureIdle = (sim: StartedSim, token: string, usine: ReadonlyArray<string>, label: string, minutes: number, everySeconds: number) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir("usine-bench-idle-")
    const port = yield* idleWorld(sim, token, dir, `idle-${label.replace(/\W+/g, "-")}`)
    const spawned = Date.now()
    const daemon = yield* startDaemon(dir, usine)
    yield* boardAnswers(port)
    const samples: Array<IdleSample> = []
    for (let at = everySeconds; at <= minutes * 60; at += everySeconds) {
      yield* Effect.sleep(Math.max(0, spawned + at * 1000 - Date.now()))
      const sample = procSample(daemon.pid)
      if (sample === undefined) return yield* Effect.dieMessage(`${label}: usine up exited while idle:\n${daemon.output().slice(-4000)}`)
      const row = { seconds: at, rssMb: sample.rssMb, cpuMs: sample.cpuMs }
      samples.push(row)
      process.stderr.write(`idle ${label}: ${at} s, RSS ${row.rssMb.toFixed(1)} MB, CPU ${row.cpuMs} ms\n`)
    }
    const exitCode = yield* daemon.stop
    return { samples, exitCode }
  }).pipe(Effect.scoped)
