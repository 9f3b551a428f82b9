import { Effect } from "effect"
import { drainRunning } from "./drainRunning"
import { openRuns } from "./openRuns"
import { startup } from "./startup"

/**
 * One engine measurement in a process of its own: `open <runs>` (a third Running), `idle <runs>` (Waiting and Queued
 * only), `drain <fibers>` or `startup <ledger file>`.
 */
const [kind, input] = process.argv.slice(2)
const measurement: Effect.Effect<unknown, unknown> = kind === "open"
  ? openRuns(Number(input))
  : kind === "idle"
  ? openRuns(Number(input), false)
  : kind === "drain"
  ? drainRunning(Number(input))
  : kind === "startup" && input !== undefined
  ? startup(input)
  : Effect.dieMessage(`unknown case ${kind} ${input}`)

Effect.runPromise(measurement).then(
  (result) => {
    console.log(JSON.stringify(result))
    process.exit(0)
  },
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
