import { Clock, Effect, Match, Option } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"
import { InfraFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, type AttemptOutcome } from "@usine/core/attempt/outcome"
import { daemonStopped, daemonStopsOf, MAX_DAEMON_STOPS } from "@usine/core/attempt/DaemonStops"
import { shouldAutoRetry } from "@usine/core/attempt/shouldAutoRetry"
import { type AttemptId, attemptIdOf, DEFAULT_STEP } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"
import type { Run } from "@usine/core/run/Run"
import { fail, holdForReview, isStartable, type Running, start, succeed } from "@usine/core/run/state"
import type { BeginResult, FinishDecision } from "../AttemptLifecycle"
import type { Ledger } from "./Ledger"
import { conflict } from "./RunWriter"

const engine = (reason: string) => ({ actor: "engine", reason }) as const

/** `beginAttempt`, `finishAttempt` and `recordSession`: the Attempt side of a Running Run. */
export const makeAttempts = (ledger: Ledger) => {
  const { attempts, writer } = ledger

  const startNext = (run: Run, worker: string | undefined) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const number = yield* attempts.nextNumber(run.id)
      const attempt = new Attempt({
        id: attemptIdOf(run.id, number),
        runId: run.id,
        step: DEFAULT_STEP,
        number,
        startedAt: now,
        ...(worker === undefined ? {} : { worker })
      })
      yield* attempts.insert(attempt)
      return attempt
    })

  /**
   * Running: reattach a live open Attempt, or close a gone one and go on as the policy says. One without a session
   * never ran its agent: the daemon stopped while it prepared it, which is not the Run's doing, so it is retried at
   * once and does not count against the Run's automatic retries, up to `MAX_DAEMON_STOPS` (ADR 0110).
   */
  const resume = (run: Run, state: Running, live: (attempt: Attempt) => boolean, worker: string | undefined) =>
    Effect.gen(function* () {
      const open = yield* attempts.openOf(run.id)
      if (Option.isSome(open)) {
        if (live(open.value)) return { _tag: "Reattached", run, attempt: open.value } satisfies BeginResult
        const stops = daemonStopsOf(yield* attempts.allOf(run.id))
        const unstarted = open.value.session === undefined
        const failure = unstarted ? daemonStopped() : new InfraFailure({ reason: "session gone after restart" })
        yield* attempts.close(open.value.id, new AttemptFailed({ failure }), yield* Clock.currentTimeMillis)
        const giveUp = unstarted ? stops + 1 >= MAX_DAEMON_STOPS : !shouldAutoRetry(failure, open.value.number, stops)
        if (giveUp) {
          const why = unstarted
            ? `the daemon stopped ${stops + 1} times before this Run's agent started; its log says why`
            : `Attempt ${open.value.number}: session gone after restart`
          const failed = yield* writer.save(run, { state: fail(state) }, engine(why))
          return { _tag: "Failed", run: failed } satisfies BeginResult
        }
      }
      const saved = yield* writer.save(run, {}, engine("next Attempt"))
      return { _tag: "Started", run: saved, attempt: yield* startNext(saved, worker) } satisfies BeginResult
    })

  return {
    beginAttempt: Effect.fn("AttemptLifecycle.beginAttempt")(function* (
      runId: RunId,
      options: { readonly live: (attempt: Attempt) => boolean; readonly worker?: string }
    ) {
      return yield* ledger.transaction(
        Effect.gen(function* () {
          const run = yield* ledger.loadRun(runId)
          const state = run.state
          if (state._tag === "Running") return yield* resume(run, state, options.live, options.worker)
          if (!isStartable(state)) return yield* conflict(run, "begin an Attempt")
          if (state._tag === "Pending" && run.approvalRequired) {
            return yield* conflict(run, "begin an Attempt before approval")
          }
          const started = yield* writer.save(run, { state: start(state) }, engine("first Attempt started"))
          return { _tag: "Started", run: started, attempt: yield* startNext(started, options.worker) } satisfies BeginResult
        })
      )
    }),

    finishAttempt: Effect.fn("AttemptLifecycle.finishAttempt")(function* (attemptId: AttemptId, outcome: AttemptOutcome) {
      return yield* ledger.transaction(
        Effect.gen(function* () {
          const found = yield* attempts.byId(attemptId)
          if (Option.isNone(found)) return yield* new AttemptNotOpen({ attemptId })
          const attempt = found.value
          const run = yield* ledger.loadRun(attempt.runId)
          if (attempt.outcome !== undefined) {
            // `cancel` closed it already; the executor reporting the same cancel is no news.
            const repeat = attempt.outcome._tag === "Canceled" && outcome._tag === "Canceled"
            if (repeat && run.state._tag === "Canceled") return { _tag: "Closed", run } satisfies FinishDecision
            return yield* new AttemptNotOpen({ attemptId })
          }
          const state = run.state
          if (state._tag !== "Running") return yield* conflict(run, `finish Attempt ${attempt.number}`)
          const close = Effect.flatMap(Clock.currentTimeMillis, (now) => attempts.close(attemptId, outcome, now))
          const daemonStops = outcome._tag === "Failed" && outcome.failure._tag === "InfraFailure"
            ? daemonStopsOf(yield* attempts.allOf(attempt.runId))
            : 0
          return yield* Match.value(outcome).pipe(
            Match.tagsExhaustive({
              Succeeded: ({ result }) =>
                result.held !== undefined
                  ? close.pipe(
                    Effect.zipRight(
                      writer.save(run, { state: holdForReview(state) }, engine(`Attempt ${attempt.number} passed verify; waits for review before the pull request`))
                    ),
                    Effect.map((held): FinishDecision => ({ _tag: "Held", run: held }))
                  )
                  : close.pipe(
                  Effect.zipRight(writer.save(run, { state: succeed(state) }, engine(`Attempt ${attempt.number} succeeded`))),
                  Effect.map((closed): FinishDecision => ({ _tag: "Closed", run: closed }))
                ),
              Failed: ({ failure }) =>
                shouldAutoRetry(failure, attempt.number, daemonStops)
                  ? close.pipe(
                    Effect.zipRight(writer.save(run, {}, engine(`Attempt ${attempt.number} retries: ${failure.message}`))),
                    Effect.map((same): FinishDecision => ({ _tag: "RetryAttempt", run: same }))
                  )
                  : close.pipe(
                    Effect.zipRight(
                      writer.save(run, { state: fail(state) }, engine(`Attempt ${attempt.number}: ${failure.message}`))
                    ),
                    Effect.map((failed): FinishDecision => ({ _tag: "Closed", run: failed }))
                  ),
              // Only `cancel` ends a Run as Canceled; it also closes the open Attempt.
              Canceled: () => conflict(run, `finish Attempt ${attempt.number} as Canceled (cancel the Run instead)`)
            })
          )
        })
      )
    }),

    recordSession: Effect.fn("AttemptLifecycle.recordSession")(function* (attemptId: AttemptId, session: string) {
      const recorded = yield* attempts.setSession(attemptId, session)
      if (!recorded) return yield* new AttemptNotOpen({ attemptId })
    })
  }
}
