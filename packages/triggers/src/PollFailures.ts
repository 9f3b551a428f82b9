import { Clock, Effect, Ref } from "effect"

/** A poll, an `if:` or a prompt that failed, as the Board's Needs you shows it. */
interface PollFailure {
  /** Epoch ms. */
  readonly at: number
  readonly repository: string
  /** Absent when the failure is the repository's, not one Loop's. */
  readonly loop: string | undefined
  readonly item: number | undefined
  readonly message: string
}

/** How many failures are kept; older ones fall off. */
const RECENT_FAILURES = 100

/** Recent poll and render failures, newest first. */
export class PollFailures extends Effect.Service<PollFailures>()("usine/PollFailures", {
  effect: Effect.gen(function* () {
    const failures = yield* Ref.make<ReadonlyArray<PollFailure>>([])
    return {
      /** Records a failure now and logs it. */
      record: Effect.fn("PollFailures.record")(function* (failure: Omit<PollFailure, "at">) {
        const at = yield* Clock.currentTimeMillis
        yield* Ref.update(failures, (list) => [{ ...failure, at }, ...list].slice(0, RECENT_FAILURES))
        yield* Effect.logWarning(failure.message).pipe(
          Effect.annotateLogs({ repository: failure.repository, loop: failure.loop ?? "", item: failure.item ?? "" })
        )
      }),
      /**
       * A repository polled well: its own failures recorded before `since` (a failed poll, a failed label preflight)
       * are over and leave Needs you. A Loop's or an Item's failure stays; a failure recorded since is this poll's.
       */
      resolved: (repository: string, since: number) =>
        Ref.update(failures, (list) =>
          list.filter((f) => !(f.repository === repository && f.loop === undefined && f.item === undefined && f.at < since))),
      /** The failures kept, newest first. */
      recent: Ref.get(failures)
    }
  })
}) {}
