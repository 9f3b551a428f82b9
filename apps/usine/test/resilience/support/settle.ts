import { type Duration, Effect, Option } from "effect"
import { REPOSITORY } from "../../support/daemonConfig"
import { type Check, checkAfterRestart, checkNoLostEvent } from "./checkInvariants"
import type { FaultTable } from "./FaultTable"
import { readLedger } from "./LedgerSnapshot"
import { waitUntil } from "./waitUntil"

/** The last value of `look`, as soon as it has no violation, or when time is up. */
const settled = (look: () => Check, timeout: Duration.DurationInput) =>
  Effect.gen(function* () {
    let last = look()
    yield* waitUntil(
      Effect.sync(() => {
        last = look()
        return last.violations.length === 0 ? Option.some(last) : Option.none()
      }),
      timeout,
      "200 millis"
    )
    return last
  })

/**
 * After a restart: the Attempts open at the last kill end (reattached to their outcome, or InfraFailure), and every
 * issue whose labels match has its Event for its current content. Both are waited for, then recorded.
 */
export const settleAfterRestart = (options: {
  readonly ledgerFile: string
  readonly openAtKill: ReadonlyArray<string>
  readonly matching: ReadonlyMap<number, ReadonlyArray<string>>
  readonly table: FaultTable
  readonly context: string
}) =>
  Effect.gen(function* () {
    const { ledgerFile, table, context } = options
    table.record(yield* settled(() => checkAfterRestart(readLedger(ledgerFile), options.openAtKill), "60 seconds"), context)
    table.record(yield* settled(() => checkNoLostEvent(readLedger(ledgerFile), REPOSITORY, options.matching), "30 seconds"), context)
  })
