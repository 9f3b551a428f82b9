import { Effect, Layer, Option } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { TriggerCondition, TriggerConditionUnavailable } from "@usine/engine/TriggerCondition"
import type { QueuedEvent } from "@usine/store/RunClaims"
import type { GitHubClient } from "@usine/github/GitHubClient"
import { ItemTrust } from "./ItemTrust"
import { ObserveItem } from "./ObserveItem"
import { TriggerConfig } from "./TriggerConfig"

class LoopNotItemLoop {
  readonly _tag = "LoopNotItemLoop"
  constructor(readonly loop: string) {}
}

/**
 * The engine's re-check before a queued Event opens its Run: the Item is read again through the poll's observe
 * path and the Loop's `if:` evaluated on it as the poll would (sanitized, untrusted comments left out). A schedule
 * Tick has nothing to read again and always holds; an Item that no longer exists does not.
 */
export const GitHubTriggerCondition: Layer.Layer<
  TriggerCondition,
  never,
  ObserveItem | TriggerConfig | GitHubClient
> = Layer.effect(
  TriggerCondition,
  Effect.gen(function* () {
    const observer = yield* ObserveItem
    const config = yield* TriggerConfig
    const trust = yield* ItemTrust

    const check = (event: QueuedEvent) =>
      Effect.gen(function* () {
        const { submission } = event
        if (submission.number === undefined) return true
        const loop = config.current().loops.find((l): l is ItemLoop => l.name === submission.loop && l.on !== "schedule")
        if (loop === undefined) return yield* Effect.fail(new LoopNotItemLoop(submission.loop))
        const kind = loop.on === "issues" ? "issue" : "pull_request"
        const item = yield* observer.observe(submission.repository, submission.number, kind)
        if (Option.isNone(item)) return false
        const assessed = yield* trust.assess(item.value)
        return yield* evaluateIf(loop, { item: yield* assessed.context(loop), repository: submission.repository })
      })

    return {
      holds: (event) =>
        check(event).pipe(
          Effect.mapError((cause) => new TriggerConditionUnavailable({ eventId: event.eventId, cause })),
          Effect.withSpan("TriggerCondition.holds")
        )
    }
  })
).pipe(Layer.provide(ItemTrust.Default))
