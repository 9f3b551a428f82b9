import { Context, type Effect } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"

/** The Ask stored when an Item's cycle budget is used up; only the operator's reset answers it. */
export interface CycleBudgetAsk {
  readonly askId: string
  readonly loop: string
  readonly itemKey: ItemKey
  readonly generation: number
  readonly limit: number
  readonly askedAt: number
}

/** Each Item's cycle budget: its generation, the operator's reset, and the Asks a used-up budget leaves open. */
export class CycleBudgets extends Context.Tag("usine/CycleBudgets")<
  CycleBudgets,
  {
    /**
     * New generation for the Item, Ask cleared, unstarted reservations moved, `reset_pending` set. With `askId`, a
     * reset that does not answer the Item's open Ask (a repeated click) changes nothing.
     */
    readonly resetCycleBudget: (
      itemKey: ItemKey,
      options?: { readonly askId?: string }
    ) => Effect.Effect<{ readonly generation: number }>
    /** The Item's current cycle generation (0 when never reset). */
    readonly generation: (itemKey: ItemKey) => Effect.Effect<number>
    /** Items whose budget was reset since the last poll consumed the flag; reading clears it. */
    readonly takeResetPending: (repository: string) => Effect.Effect<ReadonlyArray<ItemKey>>
    /** Open cycle-budget Asks. */
    readonly asks: Effect.Effect<ReadonlyArray<CycleBudgetAsk>>
  }
>() {}
