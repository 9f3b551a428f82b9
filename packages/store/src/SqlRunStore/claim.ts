import { Clock, Effect, Option } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import type { EventId } from "@usine/core/ids/EventId"
import type { RunId } from "@usine/core/ids/RunId"
import { claimRun } from "@usine/core/run/claimRun"
import type { Run } from "@usine/core/run/Run"
import type { Actor } from "@usine/core/run/Transition"
import type { CycleBudgetAsk } from "../CycleBudgets"
import type { ClaimResult } from "../RunClaims"
import { askIdOf } from "./BudgetQueries"
import type { FastClaim } from "./fastClaim"
import type { Ledger } from "./Ledger"
import { pendingRunOf } from "./pendingRun"
import { duplicateAnswer } from "./RecentClaims"
import type { LedgerFault } from "../ledgerPort"

/**
 * Steps 2 to 5 of the seed's claim, for an Event already recorded: `recordAndClaim` and `claimQueued`.
 * `duplicateOf` answers a known Event whose outcome is final before any transaction (ADR 0045); `fast`, on the
 * client's own connection, makes the common claim in plain prepared calls (ADR 0080).
 */
export const makeClaim = (
  ledger: Ledger,
  duplicateOf: (eventId: EventId) => Effect.Effect<Option.Option<ClaimResult>, LedgerFault>,
  fast: Option.Option<FastClaim>
) => {
  const { budgets, events, runs, writer } = ledger

  /** Step 5: the Item's open Ask blocks every Loop; a Loop at `maxCycles` reservations stores a new Ask. */
  const admit = (submission: Submission, generation: number, ask: Option.Option<CycleBudgetAsk>, now: number) =>
    Effect.gen(function* () {
      if (Option.isSome(ask)) return ask
      if (submission.maxCycles === undefined) return Option.none<CycleBudgetAsk>()
      const reserved = yield* runs.reservedCount(submission.loop, submission.itemKey, generation)
      if (reserved < submission.maxCycles) return Option.none<CycleBudgetAsk>()
      const created: CycleBudgetAsk = {
        askId: askIdOf(submission.itemKey, generation),
        loop: submission.loop,
        itemKey: submission.itemKey,
        generation,
        limit: submission.maxCycles,
        askedAt: now
      }
      yield* budgets.storeAsk(created, now)
      return Option.some(created)
    })

  /** Older queued Events of the pair are stale once a Run opens for a newer one. */
  const consumeOlderQueued = (submission: Submission, run: Run, now: number) =>
    Effect.gen(function* () {
      const queued = yield* events.queuedOf(submission.loop, submission.itemKey)
      const index = queued.findIndex((event) => event.eventId === submission.eventId)
      const older = index >= 0
        ? queued.slice(0, index)
        : queued.filter((event) => event.receivedAt <= submission.receivedAt)
      for (const event of older) {
        yield* events.ignore(event.eventId, `consumed: Run ${run.id} opened for a newer Event`, now)
      }
    })

  /** `fresh`: the Event was inserted by this transaction, so no Run and no ignore row can point at it yet. */
  const claimRecorded = (submission: Submission, actor: Actor, fresh: boolean): Effect.Effect<ClaimResult, LedgerFault> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const eventId = submission.eventId
      if (!fresh) {
        const existing = yield* runs.byEvent(eventId)
        if (Option.isSome(existing)) {
          yield* events.setStatus(eventId, "claimed")
          return { _tag: "Claimed", run: existing.value, opened: false, superseded: Option.none() } as const
        }
        const ignored = yield* events.ignoredReason(eventId)
        if (Option.isSome(ignored)) return { _tag: "Ignored", eventId, reason: ignored.value } as const
      }
      const { ask, generation } = yield* budgets.budget(submission.itemKey)
      if (submission.generation < generation) {
        const reason = `old generation: the Event has ${submission.generation}, the Item is at ${generation}`
        yield* events.ignore(eventId, reason, now)
        return { _tag: "Ignored", eventId, reason } as const
      }

      const blocking = yield* runs.openOf(submission.loop, submission.itemKey)
      const decision = claimRun(blocking, eventId)
      let superseded = Option.none<RunId>()
      switch (decision._tag) {
        case "QueueEvent": {
          yield* events.setStatus(eventId, "queued")
          const behind = Option.getOrThrow(blocking).id
          return { _tag: "Queued", eventId, behind } as const
        }
        case "SupersedeRun": {
          const run = Option.getOrThrow(blocking)
          // A stale version cannot happen inside this transaction; if it does, the ledger is corrupt.
          yield* writer
            .save(run, { state: decision.state }, { actor, reason: `superseded by Event ${eventId}` })
            .pipe(Effect.catchTag("StaleRunVersion", Effect.die))
          superseded = Option.some(run.id)
          break
        }
        case "OpenRun":
          break
      }

      const blockedBy = yield* admit(submission, generation, ask, now)
      if (Option.isSome(blockedBy)) {
        yield* events.setStatus(eventId, "blocked")
        return { _tag: "CycleBlocked", ask: blockedBy.value, superseded } as const
      }
      const run = yield* writer.open(
        pendingRunOf(submission, generation, now),
        { actor, reason: `opened for Event ${eventId}` }
      )
      yield* events.setStatus(eventId, "claimed")
      yield* consumeOlderQueued(submission, run, now)
      return { _tag: "Claimed", run, opened: true, superseded } as const
    })

  const claimInTransaction = Effect.fn("RunClaims.recordAndClaim")(function* (submission: Submission) {
    return yield* ledger.transaction(
      Effect.gen(function* () {
        // The insert comes first so the transaction holds SQLite's write lock before it reads anything.
        const fresh = yield* events.insert(submission, yield* Clock.currentTimeMillis)
        const result = yield* claimRecorded(submission, "trigger", fresh)
        // Final answers, kept once this transaction has committed (`Ledger.transaction`).
        if (result._tag === "Claimed") ledger.recent.rememberAtCommit(submission.eventId, duplicateAnswer(result.run))
        if (result._tag === "Ignored") ledger.recent.rememberAtCommit(submission.eventId, result)
        return result
      })
    )
  })

  const general = (submission: Submission): Effect.Effect<ClaimResult, LedgerFault> =>
    Effect.flatMap(
      duplicateOf(submission.eventId),
      Option.match({ onNone: () => claimInTransaction(submission), onSome: Effect.succeed })
    )

  return {
    // A duplicate whose outcome is final is answered without writing; a race lost to a concurrent writer between
    // the look-up and the transaction is the transaction's to settle, as before. With the client's connection, an
    // Event `recent` does not know goes to the common claim first, whose insert tells a new Event from a known one
    // (ADR 0080); whatever it does not settle goes the general way.
    recordAndClaim: (submission: Submission): Effect.Effect<ClaimResult, LedgerFault> =>
      Option.match(fast, {
        onNone: () => general(submission),
        onSome: (claim) =>
          Effect.suspend(() => {
            const known = ledger.recent.get(submission.eventId)
            if (known !== undefined) return Effect.succeed(known)
            return Effect.flatMap(claim(submission), Option.match({ onNone: () => general(submission), onSome: Effect.succeed }))
          })
      }),
    claimQueued: Effect.fn("RunClaims.claimQueued")(function* (eventId: EventId) {
      return yield* ledger.transaction(
        Effect.gen(function* () {
          const event = yield* events.find(eventId)
          if (Option.isNone(event)) {
            return { _tag: "Ignored", eventId, reason: "no such Event in the ledger" } as const satisfies ClaimResult
          }
          return yield* claimRecorded(event.value.submission, "engine", false)
        })
      )
    })
  }
}
