import { Context, Effect, Layer } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import { CycleBudgets } from "@usine/store/CycleBudgets"
import { LoopPauses } from "@usine/store/LoopPauses"

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
  static readonly layerLedger: Layer.Layer<LoopControl, never, LoopPauses | CycleBudgets> = Layer.effect(
    LoopControl,
    Effect.map(Effect.all([LoopPauses, CycleBudgets]), ([pauses, budgets]) => ({
      pausedLoops: pauses.pausedLoops,
      generation: budgets.generation,
      takeResetPending: budgets.takeResetPending
    }))
  )
}
