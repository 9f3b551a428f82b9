import { Context, Effect, Layer } from "effect"

/** A poll, an `if:` or a prompt render that failed. */
export interface PollFailureView {
  /** Epoch ms. */
  readonly at: number
  readonly repository: string
  /** Absent when the whole repository's poll failed. */
  readonly loop?: string | undefined
  readonly item?: number | undefined
  readonly message: string
}

/** One GitHub rate-limit resource as last reported. */
export interface RateQuotaView {
  readonly resource: "core" | "graphql"
  readonly limit: number
  readonly remaining: number
  /** Epoch ms. */
  readonly resetAt?: number | undefined
}

/** What GitHub polling reports for Needs you; the app implements it with the GitHub package's `PollFailures`. */
export class PollFailureFeed extends Context.Tag("usine/PollFailureFeed")<
  PollFailureFeed,
  {
    /** Recent poll and render failures, newest first. */
    readonly recent: Effect.Effect<ReadonlyArray<PollFailureView>>
    /** The rate quotas GitHub last reported; empty before its first answer. */
    readonly rateQuotas: Effect.Effect<ReadonlyArray<RateQuotaView>>
  }
>() {
  /** No polling: a daemon without GitHub triggers, and tests. */
  static readonly layerEmpty: Layer.Layer<PollFailureFeed> = Layer.succeed(PollFailureFeed, {
    recent: Effect.succeed([]),
    rateQuotas: Effect.succeed([])
  })
}
