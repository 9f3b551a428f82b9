import { Deferred, Effect, Exit, FiberId } from "effect"

/**
 * Wakes every held Run fiber when an operator lifts a brake (a raised cap, a cleared park). A fiber takes the current
 * ring before it checks its brakes, so a ring between the check and the wait is never missed.
 */
export class Bell {
  private ringing = Deferred.unsafeMake<void>(FiberId.none)

  /** The next ring, as of now. */
  get next(): Effect.Effect<void> {
    return Deferred.await(this.ringing)
  }

  readonly ring: Effect.Effect<void> = Effect.sync(() => {
    const rung = this.ringing
    this.ringing = Deferred.unsafeMake<void>(FiberId.none)
    Deferred.unsafeDone(rung, Exit.void)
  })
}
