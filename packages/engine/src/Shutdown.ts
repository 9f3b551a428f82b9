import { Deferred, Duration, Effect, Exit } from "effect"

/** How the drain wait ended. */
type DrainEnd = "Idle" | "Stopped" | "TimedOut"

/**
 * Attempt admission and the shutdown latch. The first shutdown request closes admission at once; the drain then
 * waits for admitted Attempts to record their outcome until a second request, or its bound, ends the wait. The
 * engine installs no signal handler: the app calls `requestShutdown` on SIGINT and SIGTERM.
 */
export class Shutdown extends Effect.Service<Shutdown>()("usine/Shutdown", {
  effect: Effect.gen(function*() {
    const firstRequest = yield* Deferred.make<void>()
    const secondRequest = yield* Deferred.make<void>()
    const idle = yield* Deferred.make<void>()
    let closed = false
    let admitted = 0

    const settle = () => {
      if (closed && admitted === 0) Deferred.unsafeDone(idle, Exit.void)
    }

    /** Holds admission for one Attempt while the scope is open; once admission closed, waits until interrupted. */
    const admit = Effect.acquireRelease(
      Effect.sync(() => {
        if (closed) return false
        admitted++
        return true
      }),
      (entered) =>
        Effect.sync(() => {
          if (!entered) return
          admitted--
          settle()
        })
    ).pipe(Effect.flatMap((entered) => (entered ? Effect.void : Effect.never)), Effect.withSpan("Shutdown.admit"))

    /** A shutdown signal: the first closes admission, any later one ends the drain wait. */
    const requestShutdown = Effect.sync((): "Draining" | "Stopping" => {
      if (!closed) {
        closed = true
        Deferred.unsafeDone(firstRequest, Exit.void)
        settle()
        return "Draining"
      }
      Deferred.unsafeDone(secondRequest, Exit.void)
      return "Stopping"
    }).pipe(Effect.withSpan("Shutdown.requestShutdown"))

    /** Closes admission if still open, then waits for admitted Attempts, a second request, or `maxWait`. */
    const drain = Effect.fn("Shutdown.drain")(function*(maxWait?: Duration.DurationInput) {
      if (!closed) yield* requestShutdown
      const waits: Array<Effect.Effect<DrainEnd>> = [
        Deferred.await(idle).pipe(Effect.as("Idle" as const)),
        Deferred.await(secondRequest).pipe(Effect.as("Stopped" as const))
      ]
      if (maxWait !== undefined) waits.push(Effect.sleep(maxWait).pipe(Effect.as("TimedOut" as const)))
      return yield* Effect.raceAll(waits)
    })

    return {
      admit,
      requestShutdown,
      drain,
      /** Completes on the first shutdown request. */
      requested: Deferred.await(firstRequest),
      /** Whether Attempts may still start, and how many are admitted now. */
      status: Effect.sync(() => ({ admitting: !closed, admitted }))
    } as const
  })
}) {}
