import { Context, type Effect } from "effect"

/** Loops the operator paused: a paused Loop takes no Event and revokes nothing. */
export class LoopPauses extends Context.Tag("usine/LoopPauses")<
  LoopPauses,
  {
    /** Pauses or unpauses a Loop. */
    readonly setPaused: (loop: string, paused: boolean) => Effect.Effect<void>
    /** The Loops paused now. */
    readonly pausedLoops: Effect.Effect<ReadonlySet<string>>
  }
>() {}
