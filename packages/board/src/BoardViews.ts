import { Clock, Effect, Option } from "effect"
import { budgetDayOf } from "@usine/core/config/BudgetConfig"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import { Redactor } from "@usine/core/text/Redactor"
import { BrakeStore } from "@usine/store/BrakeStore"
import { ReadModel } from "@usine/store/ReadModel"
import { RunReads } from "@usine/store/RunReads"
import type { RunFilter, RunPage } from "@usine/store/ReadModel/runList"
import { TriggerRefusals } from "@usine/store/TriggerRefusals"
import { WriteBackOutbox } from "@usine/store/WriteBackOutbox"
import { BoardSettings } from "./BoardSettings"
import { boardView, type CardRun } from "./BoardViews/boardView"
import { type BrakesView, capStatuses, parkedItem } from "./BoardViews/brakesView"
import { loopsView } from "./BoardViews/loopsView"
import { needsYouView, REFUSED_SHOWN, refusedTriggersView } from "./BoardViews/needsYouView"
import { redactDeep } from "./BoardViews/redactDeep"
import { runView } from "./BoardViews/runView"
import { type DayCounts, runsByDay } from "./BoardViews/runsByDay"
import { usageDays, usageView } from "./BoardViews/usageView"
import { PollFailureFeed } from "./PollFailureFeed"
import { WorkerStatusFeed } from "./WorkerStatusFeed"

/** How many transcript rows the Run page shows at first; the live stream adds the rest. */
const TRANSCRIPT_WINDOW = 1000

/** How many cards the Board shows with their newest Run (two reads each); later cards show their open Runs only. */
const CARDS_WITH_RUNS = 100

/** The Runs page's filters as the operator gave them, echoed back to fill the form. */
export type RunsQuery = Omit<RunFilter, "limit" | "itemKey"> & { readonly item?: string | undefined }

export interface RunsView {
  readonly query: RunsQuery
  readonly page: RunPage
  /** The last 14 UTC days' Runs by state, oldest first, under the Loop, repository and Item filters. */
  readonly byDay: ReadonlyArray<DayCounts>
}

/**
 * The data of every page. A page and its JSON twin render the same value, and every string in it has passed the
 * redactor, so neither can show a secret.
 */
export class BoardViews extends Effect.Service<BoardViews>()("usine/BoardViews", {
  effect: Effect.gen(function* () {
    const model = yield* ReadModel
    const store = yield* RunReads
    const redactor = yield* Redactor
    const boardSettings = yield* BoardSettings
    const polls = yield* PollFailureFeed
    const workerFeed = yield* WorkerStatusFeed
    const brakeStore = yield* BrakeStore
    const refusals = yield* TriggerRefusals
    const writeBacks = yield* WriteBackOutbox
    const clean = <A>(value: A): A => redactDeep(redactor.redact, value)

    /** Every configured daily cap with today's figures. */
    const capsToday = Effect.gen(function* () {
      const day = budgetDayOf(yield* Clock.currentTimeMillis)
      const used = yield* brakeStore.usageOfDays(day, day)
      const settings = boardSettings.current()
      return capStatuses(day, settings.loops, settings.budget, used, yield* brakeStore.raises(day))
    })

    const brakes = Effect.gen(function* () {
      const settings = boardSettings.current()
      const held = yield* brakeStore.heldRuns(settings.pageSize + 1)
      return {
        held: held.slice(0, settings.pageSize),
        moreHeld: held.length > settings.pageSize,
        parked: (yield* brakeStore.parked(settings.pageSize)).map(parkedItem),
        agentHolds: yield* brakeStore.agentHolds(yield* Clock.currentTimeMillis),
        capsReached: (yield* capsToday).filter((cap) => cap.reached !== undefined)
      } satisfies BrakesView
    })

    /** An Item's newest Run, with the pull request of its succeeded Attempt. */
    const latestRunOf = (itemKey: string) =>
      Effect.gen(function* () {
        const newest = (yield* model.runs({ itemKey, limit: 1 })).runs[0]
        if (newest === undefined) return undefined
        const result = newest.state === "Succeeded"
          ? yield* Effect.map(Effect.option(model.run(newest.id)), Option.flatMap((detail) =>
            Option.fromNullable(detail.attempts.findLast((a) => a.outcome?._tag === "Succeeded")?.outcome)))
          : Option.none()
        const outcome = Option.getOrUndefined(result)
        const url = outcome?._tag === "Succeeded" ? outcome.result.pullRequestUrl : undefined
        const number = outcome?._tag === "Succeeded" ? outcome.result.pullRequestNumber : undefined
        return {
          id: newest.id,
          loop: newest.loop,
          state: newest.state,
          since: newest.updatedAt,
          ...(url === undefined ? {} : { pullRequest: { url, ...(number === undefined ? {} : { number }) } })
        } satisfies CardRun
      })

    return {
      /** Needs you: approvals, unresolved failures, Asks, poll failures, low rate quotas, Worker alerts, refusals. */
      needsYou: Effect.gen(function* () {
        const ledger = yield* model.needsYou(boardSettings.current().pageSize)
        const feeds = [yield* polls.recent, yield* polls.rateQuotas, yield* workerFeed.workers] as const
        const refused = refusedTriggersView(yield* refusals.recent(REFUSED_SHOWN), yield* refusals.countsByLoop)
        return clean(needsYouView(ledger, ...feeds, yield* brakes, refused))
      }).pipe(Effect.withSpan("BoardViews.needsYou")),

      /** One page of Runs under the filters, with counts per state. */
      runs: Effect.fn("BoardViews.runs")(function* (query: RunsQuery, itemKey: string | undefined) {
        const page = yield* model.runs({ ...query, itemKey, limit: boardSettings.current().pageSize })
        const filter = { loop: query.loop, repository: query.repository, itemKey }
        const byDay = yield* runsByDay(model.runCountsByDay, filter, yield* Clock.currentTimeMillis)
        return clean({ query, page, byDay } satisfies RunsView)
      }),

      /** A Run with its timeline, Attempts, result, usage, legal actions, and the shown Attempt's transcript. */
      run: Effect.fn("BoardViews.run")(function* (runId: RunId, attemptNumber: number | undefined) {
        const detail = yield* model.run(runId)
        const shown = attemptNumber === undefined
          ? detail.attempts.at(-1)
          : detail.attempts.find((a) => a.number === attemptNumber)
        const lines = shown === undefined
          ? []
          : yield* model.transcript(shown.id, { limit: TRANSCRIPT_WINDOW, newest: true })
        const latest = yield* store.latestPatch(runId)
        const patch = Option.match(latest, {
          onNone: () => undefined,
          onSome: (p) => ({ attemptNumber: p.attemptNumber, text: p.patch.text, cut: p.patch.cut })
        })
        return clean(runView(detail, shown, lines, patch, yield* writeBacks.troubles(runId)))
      }),

      /** The stored diff of the Run's last Attempt that has one (ADR 0063, issue 21) as text, redacted; empty without one. */
      patch: Effect.fn("BoardViews.patch")(function* (runId: RunId) {
        const latest = yield* store.latestPatch(runId)
        return redactor.redact(Option.match(latest, { onNone: () => "", onSome: (p) => p.patch.text }))
      }),

      /** Transcript rows after `afterSeq`, redacted: what the live stream sends. */
      transcriptAfter: Effect.fn("BoardViews.transcriptAfter")(function* (attemptId: AttemptId, afterSeq: number) {
        return clean(yield* model.transcript(attemptId, { afterSeq, limit: TRANSCRIPT_WINDOW }))
      }),

      runPulse: model.runPulse,
      changeMark: Effect.map(
        Effect.all([model.changeMark, brakeStore.changeMark, Effect.map(refusals.recent(1), (newest) => newest[0]?.eventId ?? "")]),
        (marks) => marks.join("|")
      ),

      /** The kanban Board of the configured repositories; the first cards carry their Item's newest Run. */
      board: Effect.gen(function* () {
        const settings = boardSettings.current()
        const items = yield* model.boardItems(settings.repositories)
        const cards = yield* Effect.forEach(items, (item, index) =>
          index >= CARDS_WITH_RUNS ? Effect.succeed(item) : Effect.map(latestRunOf(item.itemKey), (latestRun) => ({ ...item, ...(latestRun === undefined ? {} : { latestRun }) })))
        return clean(boardView(settings.columns, cards))
      }).pipe(Effect.withSpan("BoardViews.board")),

      /** Each Loop's trigger, `if:`, counts, refused triggers, pause flag and Asks. */
      loops: Effect.gen(function* () {
        const overview = yield* model.loops
        const settings = boardSettings.current()
        const limited = settings.loops.filter((loop) => loop.maxOpenPullRequests !== undefined)
        const open = yield* Effect.forEach(limited, (loop) =>
          Effect.map(brakeStore.openPullRequests(loop.name), (pulls) => [loop.name, pulls] as const))
        const brakeFigures = { caps: yield* capsToday, openPullRequests: new Map(open) }
        return clean(loopsView(settings.loops, overview, brakeFigures, yield* refusals.countsByLoop))
      }).pipe(Effect.withSpan("BoardViews.loops")),

      /** Tokens and cost per UTC day of the daemon, each Loop and each repository, and today's caps. */
      usage: Effect.gen(function* () {
        const days = usageDays(yield* Clock.currentTimeMillis)
        const rows = yield* brakeStore.usageOfDays(days.at(-1) ?? "", days[0] ?? "")
        return clean(usageView(days, rows, yield* capsToday))
      }).pipe(Effect.withSpan("BoardViews.usage")),

      /** Each Worker's slots, capabilities and health. */
      workers: Effect.map(workerFeed.workers, (workers) => clean({ workers })).pipe(Effect.withSpan("BoardViews.workers"))
    } as const
  })
}) {}
