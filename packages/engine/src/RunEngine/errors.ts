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
