import { Clock, Effect, Option } from "effect"
import { RunStateConflict, StaleRunVersion } from "@usine/core/run/RunWriteRefusals"
import { Run } from "@usine/core/run/Run"
import { ActingPerson } from "@usine/core/people/ActingPerson"
import type { Actor } from "@usine/core/run/Transition"
import type { RunQueries } from "./RunQueries"
import type { LedgerFault } from "../ledgerPort"

/** Who changed a Run and why, for its transition row. */
interface Cause {
  readonly actor: Actor
  readonly reason: string
}

/** The signed-in person behind an operator's change, for its row; nobody for the engine's and the triggers' own. */
export const loginFor = (actor: Actor): Effect.Effect<{ readonly login?: string }> =>
  actor !== "operator"
    ? Effect.succeed({})
    : Effect.map(ActingPerson, ({ login }) => (login === undefined ? {} : { login }))

/** The fields a write may change; `version` and `updatedAt` follow by themselves. */
export type RunPatch = Partial<
  Pick<Run, "state" | "task" | "agent" | "model" | "generation" | "resolvedFailureAttemptId">
>

/** The action is not legal in the Run's state. */
export const conflict = (run: Run, action: string): RunStateConflict =>
  new RunStateConflict({ runId: run.id, action, state: run.state._tag })

/** Refuses a caller that read an older version than the ledger holds. */
export const checkVersion = (run: Run, expected: number | undefined): Effect.Effect<void, StaleRunVersion> =>
  expected === undefined || expected === run.version
    ? Effect.void
    : Effect.fail(new StaleRunVersion({ runId: run.id, expected, actual: run.version }))

/** The only way the store writes a Run: versioned, with a transition row for every state change. */
export const makeRunWriter = (runs: RunQueries) => ({
  /** Inserts a new Run and the transition row that opens it. */
  open: (run: Run, cause: Cause) =>
    runs.insert(run).pipe(
      Effect.zipRight(
        runs.insertTransition({ runId: run.id, to: run.state._tag, actor: cause.actor, reason: cause.reason, at: run.createdAt })
      ),
      Effect.as(run)
    ),

  /**
   * Writes `current` with `patch` as version + 1, only if the row still holds `current.version`; a mismatch is
   * `StaleRunVersion` and nothing is written. A changed state tag writes its transition row too.
   */
  save: (current: Run, patch: RunPatch, cause: Cause): Effect.Effect<Run, StaleRunVersion | LedgerFault> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      // A valid Run and a typed patch: skipping the constructor's validation saves ~100 µs a write.
      const next = new Run({ ...current, ...patch, version: current.version + 1, updatedAt: now }, true)
      const written = yield* runs.updateIfVersion(next, current.version)
      if (!written) {
        const actual = yield* runs.versionOf(current.id)
        return yield* new StaleRunVersion({
          runId: current.id,
          expected: current.version,
          actual: Option.getOrElse(actual, () => -1)
        })
      }
      if (next.state._tag !== current.state._tag) {
        yield* runs.insertTransition({
          runId: current.id,
          from: current.state._tag,
          to: next.state._tag,
          actor: cause.actor,
          ...(yield* loginFor(cause.actor)),
          reason: cause.reason,
          at: now
        })
      }
      return next
    })
})

