import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Schedule } from "effect"
import { SqliteDatabase } from "./SqliteDatabase"

/** SQLite's "another connection holds the lock" answers: `SQLITE_BUSY` and its extended codes (`SQLITE_BUSY_SNAPSHOT`, ...). */
export const isBusy = (error: unknown): error is SqlError => error instanceof SqlError && SqliteDatabase.isBusy(error.cause)

/** Eight retries, exponential from 25 ms and at most 1 s apart: about 4 s on top of each statement's busy timeout. */
const busySchedule = Schedule.exponential(Duration.millis(25)).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.seconds(1))),
  Schedule.intersect(Schedule.recurs(8))
)

/**
 * Runs `effect` again, after a pause on the `Clock`, while it fails with `SQLITE_BUSY` and the schedule allows; any
 * other error (and the last busy one) passes through at once, unchanged. For a whole transaction's start: rerunning
 * one statement of a transaction would not do, the rollback undid the others.
 */
export const retryWhileBusy = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(effect, { schedule: busySchedule, while: isBusy })
