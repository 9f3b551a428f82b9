import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { runParentSpan } from "../src/RunDriver/runParentSpan"

const callerOf = Effect.option(Effect.currentSpan)

describe("runParentSpan", () => {
  it.effect("is the caller's span as ids only; none without a caller or inside another Run's span", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(runParentSpan(yield* callerOf)), "no caller")
      const poll = yield* callerOf.pipe(Effect.withSpan("RunEngine.submit"), Effect.withSpan("PollingTriggers.pollOnce"))
      const parent = runParentSpan(poll)
      assert.isTrue(Option.isSome(parent) && Option.isSome(poll))
      if (Option.isSome(parent) && Option.isSome(poll)) {
        assert.strictEqual(parent.value._tag, "ExternalSpan", "no chain of ended spans kept")
        assert.strictEqual(parent.value.spanId, poll.value.spanId)
        assert.strictEqual(parent.value.traceId, poll.value.traceId)
      }
      const queuedBehind = yield* callerOf.pipe(
        Effect.withSpan("RunEngine.submit"),
        Effect.withSpan("RunDriver.continueWithNewest"),
        Effect.withSpan("RunDriver.drive", { attributes: { "usine.run_id": "r1" } })
      )
      assert.isTrue(Option.isNone(runParentSpan(queuedBehind)), "the next Run of the Item starts a trace of its own")
    }))
})
