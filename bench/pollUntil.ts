import { Effect } from "effect"

/** Checks every 50 ms until `check` holds; dies after `timeoutMs` so a broken engine fails the bench, not hangs it. */
export const pollUntil = <E, R>(label: string, check: Effect.Effect<boolean, E, R>, timeoutMs = 600_000) =>
  Effect.gen(function*() {
    const deadline = performance.now() + timeoutMs
    while (!(yield* check)) {
      if (performance.now() > deadline) return yield* Effect.dieMessage(`never happened: ${label}`)
      yield* Effect.sleep("50 millis")
    }
  })
