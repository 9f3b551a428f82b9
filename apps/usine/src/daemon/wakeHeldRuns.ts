import { Effect, Either, Queue } from "effect"
import { RunEngine } from "@usine/engine/RunEngine"
import { type CycleReport, PollingTriggers } from "@usine/triggers/PollingTriggers"

/** The pull requests a poll cycle saw merged, closed or gone, as `owner/name#number`. */
export const closedPullRequests = (report: CycleReport): ReadonlyArray<string> =>
  report.repositories.flatMap(({ repository, result }) =>
    Either.isLeft(result)
      ? []
      : result.right.items
          .filter((item) => item.kind === "pull_request" && !(item.present && item.open))
          .map((item) => `${repository}#${item.number}`)
  )

/**
 * Wakes the held Runs after every poll cycle that saw a pull request closed: a WIP limit frees its slot when polling
 * sees the merge, not at the held Run's next minute-long recheck.
 */
export const wakeHeldRuns = Effect.gen(function* () {
  const engine = yield* RunEngine
  const cycles = yield* (yield* PollingTriggers).cycles
  return yield* Effect.forever(
    Effect.gen(function* () {
      const closed = closedPullRequests(yield* Queue.take(cycles))
      if (closed.length === 0) return
      yield* Effect.logDebug(`pull requests closed: ${closed.join(", ")}; held runs look again`)
      yield* engine.wakeHeld
    })
  )
}).pipe(Effect.scoped)
