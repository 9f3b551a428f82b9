import { Clock, Effect, Option } from "effect"
import { cycleResetEventIdOf } from "@usine/core/ids/EventId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { isUnstarted, revoke } from "@usine/core/run/state"
import { askIdOf } from "./BudgetQueries"
import type { Ledger } from "./Ledger"

/** What concerns a Loop's or an Item's Events as a whole: revocation and the cycle-budget reset. */
export const makeItemActions = (ledger: Ledger) => {
  const { budgets, events, runs, writer } = ledger

  const ignoreQueued = (loop: string, itemKey: ItemKey, reason: string) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const queued = yield* events.queuedOf(loop, itemKey)
      for (const event of queued) yield* events.ignore(event.eventId, reason, now)
      return queued.length
    })

  return {
    revoke: Effect.fn("RunClaims.revoke")(function* (loop: string, itemKey: ItemKey) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const revoked: Array<RunId> = []
        for (const run of yield* runs.unstartedOf(loop, itemKey)) {
          const state = run.state
          if (!isUnstarted(state)) continue
          // Nothing else writes inside this transaction, so a stale version means a corrupt ledger.
          yield* writer
            .save(run, { state: revoke(state) }, { actor: "trigger", reason: "the Item no longer matches the Loop" })
            .pipe(Effect.catchTag("StaleRunVersion", Effect.die))
          revoked.push(run.id)
        }
        yield* ignoreQueued(loop, itemKey, "revoked: the Item no longer matches the Loop")
        return revoked
      }))
    }),

    revokeQueued: Effect.fn("RunClaims.revokeQueued")(function* (loop: string, itemKey: ItemKey, reason: string) {
      return yield* ledger.transaction(ignoreQueued(loop, itemKey, reason))
    }),

    strandedQueued: Effect.withSpan(events.stranded, "RunClaims.strandedQueued"),

    newestQueued: Effect.fn("RunClaims.newestQueued")(function* (loop: string, itemKey: ItemKey) {
      const queued = yield* events.queuedOf(loop, itemKey)
      return Option.fromNullable(queued[queued.length - 1])
    }),

    /**
     * Answers the Item's Ask: records the answer Event, opens the next generation, clears the Ask, moves the
     * reservations of unstarted Runs into it and sets `reset_pending`. With `askId`, a reset that no longer matches
     * the open Ask (a repeated click) changes nothing.
     */
    resetCycleBudget: Effect.fn("CycleBudgets.resetCycleBudget")(function* (
      itemKey: ItemKey,
      options?: { readonly askId?: string }
    ) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const { ask, generation } = yield* budgets.budget(itemKey)
        const askId = Option.match(ask, { onNone: () => askIdOf(itemKey, generation), onSome: (open) => open.askId })
        if (options?.askId !== undefined && options.askId !== askId) return { generation }
        const recorded = yield* budgets.recordReset(cycleResetEventIdOf(askId), itemKey, askId, generation, now)
        if (!recorded) return { generation }
        const next = generation + 1
        yield* budgets.advance(itemKey, next, now)
        for (const run of yield* runs.unstartedOnItem(itemKey)) {
          yield* writer
            .save(run, { generation: next }, { actor: "operator", reason: "cycle budget reset" })
            .pipe(Effect.catchTag("StaleRunVersion", Effect.die))
        }
        return { generation: next }
      }))
    })
  }
}
