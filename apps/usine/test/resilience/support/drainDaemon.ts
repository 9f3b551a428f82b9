import { Clock, Effect } from "effect"
import type { FaultTable } from "./FaultTable"
import { processesUnder } from "./ourProcesses"
import type { startDaemon } from "./startDaemon"
import { waitFor } from "./waitUntil"

/**
 * SIGTERM, then the drain's promise: exit 0 within `boundSeconds` (the largest `max_attempt_minutes`), and no
 * process left whose working directory or command line is under `dir` (a short grace lets exited sessions be
 * reaped). Both are recorded in the table; returns how long the drain took.
 */
export const drainDaemon = (
  daemon: Effect.Effect.Success<ReturnType<typeof startDaemon>>,
  dir: string,
  table: FaultTable,
  options: {
    readonly label: string
    readonly boundSeconds?: number
    /** Processes under `dir` that are the test's own (an sshd standing in for a remote host), not usine's. */
    readonly ignore?: (cmdline: string) => boolean
  }
) =>
  Effect.gen(function* () {
    const boundSeconds = options.boundSeconds ?? 60
    const started = yield* Clock.currentTimeMillis
    yield* daemon.usine.signal("SIGTERM")
    table.inject(options.label)
    const code = yield* daemon.usine.exit(`${boundSeconds + 30} seconds`).pipe(Effect.orElseSucceed(() => "still running" as const))
    const tookMs = (yield* Clock.currentTimeMillis) - started
    table.note(`${options.label}: exit ${code} after ${(tookMs / 1000).toFixed(1)} s (bound ${boundSeconds} s)`)
    table.assert(
      "SIGTERM drains: exit 0 within the bound",
      code === 0 && tookMs <= boundSeconds * 1000,
      `exit ${code} after ${tookMs} ms (bound ${boundSeconds} s); stderr: ${daemon.usine.stderr().slice(-500)}`
    )
    const ours = () => processesUnder(dir).filter((p) => options.ignore?.(p.cmdline) !== true)
    yield* waitFor(() => ours().length === 0, "5 seconds", "100 millis")
    const left = ours()
    table.assert("no process of ours left after the drain", left.length === 0, left.map((p) => `${p.pid} ${p.cmdline}`).join("; "))
    return tookMs
  })
