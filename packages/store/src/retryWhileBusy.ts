import { SqlError } from "@effect/sql/SqlError"
import { Data, Duration, Effect, Option, Schedule } from "effect"
import { SqliteDatabase } from "./SqliteDatabase"

/** SQLite's "another connection holds the lock" answers: `SQLITE_BUSY` and its extended codes (`SQLITE_BUSY_SNAPSHOT`, ...). */
export const isBusy = (error: unknown): error is SqlError => error instanceof SqlError && SqliteDatabase.isBusy(error.cause)

/** Eight retries, exponential from 25 ms and at most 1 s apart: about 4 s on top of each statement's busy timeout. */
const busySchedule = Schedule.exponential(Duration.millis(25)).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.seconds(1))),
  Schedule.intersect(Schedule.recurs(8))
)

/** A busy error a query inside the transaction already turned into a defect (the store's queries die on SQL errors). */
class BusyDefect extends Data.TaggedError("BusyDefect")<{ readonly error: SqlError }> {}

const isBusyDefect = (error: unknown): error is BusyDefect => error instanceof BusyDefect

/**
 * Runs `effect` again, after a pause on the `Clock`, while it fails or dies with `SQLITE_BUSY` and the schedule
 * allows; any other error or defect (and the last busy one) passes through at once, unchanged. For a whole
 * transaction: rerunning one statement of it would not do, the rollback undid the others.
 */
export const retryWhileBusy = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.catchSomeDefect((defect) => (isBusy(defect) ? Option.some(Effect.fail(new BusyDefect({ error: defect }))) : Option.none())),
    Effect.retry({ schedule: busySchedule, while: (error) => isBusyDefect(error) || isBusy(error) }),
    Effect.catchIf(isBusyDefect, (busy) => Effect.die(busy.error))
  )
