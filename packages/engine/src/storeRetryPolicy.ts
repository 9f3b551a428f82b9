import { Data, Effect, Schedule } from "effect"

/** Four retries of a failed store write, with exponential backoff from 100 ms. */
export const storeRetryPolicy = Schedule.exponential("100 millis").pipe(Schedule.intersect(Schedule.recurs(4)))

class StoreDefect extends Data.TaggedError("StoreDefect")<{ readonly defect: unknown }> {}

const isStoreDefect = (error: unknown): error is StoreDefect => error instanceof StoreDefect

/**
 * Retries a store call that died: the store turns an SQL error into a defect at its boundary. Typed errors (a
 * state conflict, a stale version) are answers, not failures, and pass through at once.
 */
export const withStoreRetry = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.catchAllDefect((defect) => Effect.fail(new StoreDefect({ defect }))),
    Effect.retry({ schedule: storeRetryPolicy, while: isStoreDefect }),
    Effect.catchIf(isStoreDefect, (error) => Effect.die(error.defect))
  )
