import { Context, Effect, Layer } from "effect"

/** A Worker as the Workers page shows it. */
export interface WorkerStatus {
  readonly name: string
  readonly slotsUsed: number
  readonly slotsMax: number
  /** Agents whose harness works there now. */
  readonly capabilities: ReadonlyArray<string>
  /** Agents it should run but cannot now (a harness logged out, a binary gone). */
  readonly lostCapabilities: ReadonlyArray<string>
  readonly health: "ok" | "degraded" | "unreachable"
  readonly detail?: string | undefined
  /** How it confines agents (ADR 0054); `none` is shown as a warning. */
  readonly sandbox?: "bubblewrap" | "none" | undefined
  /** Who the agent runs as in its sandbox, and which mechanism enforces which limits (ADR 0084). */
  readonly confinement?: { readonly user: string; readonly limits: string } | undefined
}

/** The Workers' slots, capabilities and health; the app implements it from the WorkerSlots and the transports. */
export class WorkerStatusFeed extends Context.Tag("usine/WorkerStatusFeed")<
  WorkerStatusFeed,
  {
    /** Every configured Worker, in configuration order. */
    readonly workers: Effect.Effect<ReadonlyArray<WorkerStatus>>
  }
>() {
  /** A fixed list: tests, and a daemon that does not probe its Workers. */
  static readonly layerStatic = (workers: ReadonlyArray<WorkerStatus>): Layer.Layer<WorkerStatusFeed> =>
    Layer.succeed(WorkerStatusFeed, { workers: Effect.succeed(workers) })
}
