import { Clock, Duration, Effect, Option } from "effect"

/**
 * Checks `condition` every `every` until it yields a value, or gives up after `timeout` with `None`: the caller
 * decides whether a missed moment is a failure or just a kill that lands elsewhere.
 */
export const waitUntil = <A, E, R>(
  condition: Effect.Effect<Option.Option<A>, E, R>,
  timeout: Duration.DurationInput,
  every: Duration.DurationInput = "20 millis"
): Effect.Effect<Option.Option<A>, E, R> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(timeout)
    for (;;) {
      const value = yield* condition
      if (Option.isSome(value) || (yield* Clock.currentTimeMillis) >= deadline) return value
      yield* Effect.sleep(every)
    }
  })

/** `waitUntil` for a plain predicate. */
export const waitFor = (predicate: () => boolean, timeout: Duration.DurationInput, every: Duration.DurationInput = "20 millis") =>
  Effect.map(
    waitUntil(Effect.sync(() => (predicate() ? Option.some(true) : Option.none())), timeout, every),
    Option.isSome
  )
