import { Context, Effect, Layer } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import { RunStore } from "@usine/store/RunStore"

/** What the triggers read of the operator's controls: pauses and cycle-budget generations. */
export class LoopControl extends Context.Tag("usine/LoopControl")<
  LoopControl,
  {
    /** Loops the operator paused: the triggers submit and revoke nothing for them. */
    readonly pausedLoops: Effect.Effect<ReadonlySet<string>>
    /** The Item's cycle generation, 0 until its first budget reset. */
    readonly generation: (itemKey: ItemKey) => Effect.Effect<number>
    /** Items of the repository whose budget was reset since the last poll took the flag; taking clears it. */
    readonly takeResetPending: (repository: string) => Effect.Effect<ReadonlyArray<ItemKey>>
  }
>() {
  /** Read from the ledger, where the operator's actions are written. */
  static readonly layerRunStore: Layer.Layer<LoopControl, never, RunStore> = Layer.effect(
    LoopControl,
    Effect.map(RunStore, (store) => ({
      pausedLoops: store.pausedLoops,
      generation: store.generation,
      takeResetPending: store.takeResetPending
    }))
  )
}
