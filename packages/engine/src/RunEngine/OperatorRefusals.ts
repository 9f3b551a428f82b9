import { Schema } from "effect"

/** The Loop is paused: it takes no new Event and revokes nothing until unpaused. */
export class LoopPaused extends Schema.TaggedError<LoopPaused>()("LoopPaused", { loop: Schema.String }) {
  override get message() {
    return `loop ${this.loop} is paused`
  }
}

/** No Loop of this name is configured, so no Worker or policy could run its Runs. */
export class LoopNotConfigured extends Schema.TaggedError<LoopNotConfigured>()("LoopNotConfigured", {
  loop: Schema.String
}) {
  override get message() {
    return `loop ${this.loop} is not configured`
  }
}

/** The scope has no daily cap in usine.yaml, so there is nothing to raise. */
export class DailyCapNotSet extends Schema.TaggedError<DailyCapNotSet>()("DailyCapNotSet", { scope: Schema.String }) {
  override get message() {
    return `${this.scope} has no daily cap in usine.yaml`
  }
}

/** A raise below usine.yaml's cap: lower the cap in usine.yaml instead. */
export class CapRaiseTooLow extends Schema.TaggedError<CapRaiseTooLow>()("CapRaiseTooLow", {
  scope: Schema.String,
  configured: Schema.String,
  requested: Schema.String
}) {
  override get message() {
    return `today's cap of ${this.scope} can only be raised above usine.yaml's ${this.configured}, not set to ${this.requested}`
  }
}
