import { Effect } from "effect"

/** Lets every runnable fiber go as far as it can without time passing. */
export const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow()
})

/** Yields until `check` holds; dies after many rounds so a broken feature fails the test instead of hanging it. */
export const until = (label: string, check: () => boolean | Effect.Effect<boolean, any>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 20_000; i++) {
      const result = check()
      if (typeof result === "boolean" ? result : yield* result) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`never happened: ${label}`)
  })
