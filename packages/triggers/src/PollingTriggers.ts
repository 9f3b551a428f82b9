import { Cause, Clock, Duration, Effect, Either, PubSub, Ref } from "effect"
import { GitHubClient } from "@usine/github/GitHubClient"
import { type Hint, Hints } from "./Hints"
import { PollFailures } from "./PollFailures"
import type { RateBudget } from "@usine/github/RateBudget"
import { RepositoryPoll, type RepositoryPollReport } from "./RepositoryPoll"
import { TriggerConfig } from "./TriggerConfig"

/** Repositories polled at once. */
const REPOSITORY_CONCURRENCY = 4

/** One cycle over every registered repository. */
export interface CycleReport {
  readonly startedAt: number
  readonly finishedAt: number
  readonly repositories: ReadonlyArray<{
    readonly repository: string
    readonly result: Either.Either<RepositoryPollReport, string>
  }>
}

/** What the operator sees of polling. */
interface PollStatus {
  readonly cycles: number
  readonly lastCycleAt: number | undefined
  /** Epoch ms of the next cycle; later than `poll_interval` when GitHub asked for a wait. */
  readonly nextPollAt: number | undefined
  readonly budget: RateBudget
}

/** The delay before the next cycle: `poll_interval`, or until GitHub's wait window closes if that is later. */
const delayAfterCycle = (pollInterval: Duration.Duration, budget: RateBudget, now: number): Duration.Duration =>
  Duration.max(pollInterval, Duration.millis(Math.max(0, budget.waitUntil - now)))

const describe = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/** Polls every registered repository each cycle, and refreshes the Items Hints name in between. */
export class PollingTriggers extends Effect.Service<PollingTriggers>()("usine/PollingTriggers", {
  effect: Effect.gen(function* () {
    const config = yield* TriggerConfig
    const poller = yield* RepositoryPoll
    const failures = yield* PollFailures
    const client = yield* GitHubClient
    const hints = yield* Hints
    const cycles = yield* PubSub.unbounded<CycleReport>()
    const status = yield* Ref.make({ cycles: 0, lastCycleAt: undefined as number | undefined, nextPollAt: undefined as number | undefined })

    const pollRepository = (repository: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (startedAt) => poller.poll(repository).pipe(
        Effect.tap(() => failures.resolved(repository, startedAt)),
        Effect.map(Either.right),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(
                failures.record({ repository, loop: undefined, item: undefined, message: `poll failed: ${describe(cause)}` }),
                Either.left(describe(cause))
              )
        ),
        Effect.map((result) => ({ repository, result }))
      ))

    /** One cycle: every repository, four at a time; a failed repository keeps its cursor and the others go on. */
    const pollOnce = Effect.fn("PollingTriggers.pollOnce")(function* () {
      const startedAt = yield* Clock.currentTimeMillis
      const repositories = yield* Effect.forEach(config.current().repositories, pollRepository, {
        concurrency: REPOSITORY_CONCURRENCY
      })
      const report: CycleReport = { startedAt, finishedAt: yield* Clock.currentTimeMillis, repositories }
      yield* Ref.update(status, (s) => ({ ...s, cycles: s.cycles + 1, lastCycleAt: report.finishedAt }))
      yield* PubSub.publish(cycles, report)
      return report
    })

    /** Queues a Hint (a Board move); the running loop refreshes its Item without touching the cursor. */
    const hint = (value: Hint) => hints.offer(value)

    /** Refreshes the Item a Hint names; a failure is reported, not raised. */
    const refreshHint = Effect.fn("PollingTriggers.refreshHint")(function* (value: Hint) {
      return yield* poller.refresh(value.repository, value.number).pipe(
        Effect.map(Either.right),
        Effect.catchAll((error) =>
          Effect.as(
            failures.record({ repository: value.repository, loop: undefined, item: value.number, message: error.message }),
            Either.left(error.message)
          )
        )
      )
    })

    /** The delay before the next cycle, as of now. */
    const nextDelay = Effect.gen(function* () {
      return delayAfterCycle(config.current().pollInterval, yield* client.budget, yield* Clock.currentTimeMillis)
    })

    /** Polls until interrupted, with the Hint worker beside it. */
    const run = Effect.gen(function* () {
      const refreshNext = Effect.flatMap(hints.take, refreshHint).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("hint refresh failed", cause)
        )
      )
      yield* Effect.forkScoped(Effect.forever(refreshNext))
      return yield* Effect.forever(
        Effect.gen(function* () {
          yield* pollOnce()
          const delay = yield* nextDelay
          const now = yield* Clock.currentTimeMillis
          yield* Ref.update(status, (s) => ({ ...s, nextPollAt: now + Duration.toMillis(delay) }))
          yield* Effect.sleep(delay)
        })
      )
    }).pipe(Effect.scoped)

    return {
      pollOnce,
      hint,
      refreshHint,
      nextDelay,
      run,
      /** Completed cycles, for the Board's live view and for tests. */
      cycles: PubSub.subscribe(cycles),
      /** Cycle count, next poll time and the rate budget. */
      status: Effect.map(Effect.zip(Ref.get(status), client.budget), ([s, budget]): PollStatus => ({ ...s, budget }))
    }
  }),
  dependencies: [RepositoryPoll.Default, PollFailures.Default, Hints.Default]
}) {}
