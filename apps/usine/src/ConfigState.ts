import { Clock, Context, Effect, Layer, Option, Ref, type Stream, SubscriptionRef } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"

/** A change to usine.yaml that was refused: the configuration in force stays. */
interface ConfigRejection {
  /** Epoch ms. */
  readonly at: number
  readonly file: string
  /** Every problem, one per line, as `usine check` prints them. */
  readonly message: string
  /** What became of the change, when not the whole of it was refused (a Worker that could not be opened). */
  readonly headline?: string | undefined
}

/**
 * The configuration in force. Every part of the daemon that must follow a reload reads it here (or through a live
 * view built on `unsafeGet`) instead of keeping the value it was started with (ADR 0029).
 */
export class ConfigState extends Context.Tag("usine/ConfigState")<
  ConfigState,
  {
    /** The configuration in force now. */
    readonly get: Effect.Effect<UsineConfig>
    /** The same, read synchronously, for the plain-data ports other packages read on every use. */
    readonly unsafeGet: () => UsineConfig
    /** Puts a valid configuration in force for the next cycle and clears any rejection. */
    readonly apply: (config: UsineConfig) => Effect.Effect<void>
    /**
     * Records a refused change; the configuration in force does not change. `headline` says otherwise when only part
     * of the change was refused.
     */
    readonly reject: (file: string, message: string, headline?: string) => Effect.Effect<void>
    /** The last refused change, until a valid one is applied. */
    readonly rejection: Effect.Effect<Option.Option<ConfigRejection>>
    /** The configuration in force, then every one applied after it. */
    readonly changes: Stream.Stream<UsineConfig>
  }
>() {
  static readonly layer = (initial: UsineConfig): Layer.Layer<ConfigState> =>
    Layer.effect(
      ConfigState,
      Effect.gen(function* () {
        const ref = yield* SubscriptionRef.make(initial)
        const rejected = yield* Ref.make(Option.none<ConfigRejection>())
        let current = initial
        return {
          get: SubscriptionRef.get(ref),
          unsafeGet: () => current,
          apply: (config) =>
            SubscriptionRef.set(ref, config).pipe(
              Effect.zipRight(Effect.sync(() => (current = config))),
              Effect.zipRight(Ref.set(rejected, Option.none()))
            ),
          reject: (file, message, headline) =>
            Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.set(rejected, Option.some({ at, file, message, headline }))),
          rejection: Ref.get(rejected),
          changes: ref.changes
        }
      })
    )
}
