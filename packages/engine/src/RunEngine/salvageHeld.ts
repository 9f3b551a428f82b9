import { Effect, Option } from "effect"
import type { Run } from "@usine/core/run/Run"
import { AttemptPatches } from "@usine/store/AttemptPatches"
import { RunLookup } from "@usine/store/RunLookup"
import { Executor } from "../Executor"

/**
 * After a Run closed at the pull-request gate (Reject, approval timeout): its held work, which nobody reviewed and
 * no later Attempt took up, goes to its salvage branch as a canceled Attempt's work does (ADR 0063).
 */
export const salvageHeld = Effect.fn("RunEngine.salvageHeld")(function*(run: Run) {
  const patches = yield* AttemptPatches
  const lookup = yield* RunLookup
  const executor = yield* Executor
  const found = yield* patches.heldAttempt(run.id)
  if (Option.isNone(found) || Option.isSome(found.value.review)) return Option.none<string>()
  const attempts = yield* lookup.attempts(run.id)
  if (attempts.some((a) => a.number > found.value.attempt.number)) return Option.none<string>()
  const branch = yield* executor.salvageHeld(run, found.value.held, found.value.attempt.number)
  yield* Option.match(branch, {
    onNone: () => Effect.logWarning("the held work could not be salvaged; it stays in the Worker's mirror"),
    onSome: (name) => Effect.logInfo(`the held work is salvaged on ${name}`)
  }).pipe(Effect.annotateLogs({ runId: run.id }))
  return branch
})
