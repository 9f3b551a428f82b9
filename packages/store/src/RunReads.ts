import { Context, Effect, Layer } from "effect"
import { RunStore } from "./RunStore"

/**
 * The Run reads the Board needs of the ledger, and no write (issue 35): a Run, its held patch, an Item's cycle
 * generation and the open budget Asks. Every change the Board asks for goes through the engine, which owns the
 * writes; the Board cannot reach one through this port.
 */
export class RunReads extends Context.Tag("usine/RunReads")<
  RunReads,
  Pick<RunStore["Type"], "getRun" | "latestPatch" | "generation" | "asks">
>() {
  /** The reads of the ledger's RunStore. */
  static readonly fromRunStore: Layer.Layer<RunReads, never, RunStore> = Layer.effect(
    RunReads,
    Effect.map(RunStore, (store) => ({ getRun: store.getRun, latestPatch: store.latestPatch, generation: store.generation, asks: store.asks }))
  )
}
