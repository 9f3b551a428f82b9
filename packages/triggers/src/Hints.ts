import { Effect, Queue, Ref } from "effect"

/** A nudge to read one Item now, after usine itself changed it (a Board move wrote its label). */
export interface Hint {
  readonly repository: string
  readonly number: number
}

/** Room in the queue; hints beyond it are dropped, and the next poll sees the change anyway. */
export const HINT_CAPACITY = 128

type HintOffer = "Queued" | "Merged" | "Dropped"

const keyOf = (hint: Hint) => `${hint.repository.toLowerCase()}#${hint.number}`

/** The bounded Hint queue: a duplicate of a pending Hint merges into it. */
export class Hints extends Effect.Service<Hints>()("usine/Hints", {
  effect: Effect.gen(function* () {
    const queue = yield* Queue.dropping<Hint>(HINT_CAPACITY)
    const pending = yield* Ref.make<ReadonlySet<string>>(new Set())

    /** Queues a Hint unless the same Item is already pending or the queue is full. */
    const offer = Effect.fn("Hints.offer")(function* (hint: Hint) {
      const key = keyOf(hint)
      const fresh = yield* Ref.modify(pending, (set): [boolean, ReadonlySet<string>] =>
        set.has(key) ? [false, set] : [true, new Set(set).add(key)]
      )
      if (!fresh) return "Merged" satisfies HintOffer
      if (yield* Queue.offer(queue, hint)) return "Queued" satisfies HintOffer
      yield* Ref.update(pending, (set) => {
        const next = new Set(set)
        next.delete(key)
        return next
      })
      return "Dropped" satisfies HintOffer
    }, Effect.uninterruptible)

    /** The oldest pending Hint; a Hint for the same Item offered from now on queues again. */
    const take = Effect.gen(function* () {
      const hint = yield* Queue.take(queue)
      yield* Ref.update(pending, (set) => {
        const next = new Set(set)
        next.delete(keyOf(hint))
        return next
      })
      return hint
    })

    return { offer, take, size: Queue.size(queue) }
  })
}) {}
