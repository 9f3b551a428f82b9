import { Clock, Effect } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { renderPrompt } from "@usine/core/config/renderPrompt"
import type { TriggerContext } from "@usine/core/config/TriggerContext"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { PollFailures } from "./PollFailures"
import type { ObservedItem } from "./ObserveItem"
import { loopsOfStream } from "./TriggerConfig"
import { type ClaimOutcome, TriggerSink } from "./TriggerSink"

/** What one Loop did with one Item. */
export type LoopVerdict =
  | { readonly _tag: "Revoked"; readonly loop: string }
  | { readonly _tag: "Submitted"; readonly loop: string; readonly submission: Submission; readonly claim: ClaimOutcome }
  | { readonly _tag: "RenderFailed"; readonly loop: string; readonly reason: string }

/** The Submission of an Item Loop whose `if:` holds; its Event id is the seed's dedup key. */
export const itemSubmission = (
  loop: ItemLoop,
  item: ObservedItem,
  task: string,
  receivedAt: number
): Submission => ({
  eventId: itemEventIdOf({
    loop: loop.name,
    repository: item.repository,
    number: item.number,
    contentHash: item.contentHash,
    generation: item.generation
  }),
  loop: loop.name,
  itemKey: item.itemKey,
  repository: item.repository,
  number: item.number,
  generation: item.generation,
  contentHash: item.contentHash,
  task,
  agent: loop.agent,
  approvalRequired: loop.approval === "required",
  maxCycles: loop.maxCycles,
  receivedAt
})

/**
 * Evaluates each active Loop of the Item's stream: `if:` false revokes, true renders the prompt and submits.
 * A prompt that fails to render is that Loop's poll failure alone; an `if:` that fails, or a refused call,
 * fails the Item, so the poll keeps its cursor and reads the Item again.
 */
export class EvaluateItem extends Effect.Service<EvaluateItem>()("usine/EvaluateItem", {
  effect: Effect.gen(function* () {
    const sink = yield* TriggerSink
    const failures = yield* PollFailures

    const evaluateLoop = (loop: ItemLoop, item: ObservedItem) =>
      Effect.gen(function* () {
        const context: TriggerContext = { item: item.fields, repository: item.repository }
        if (!(yield* evaluateIf(loop, context))) {
          yield* sink.revoke(loop.name, item.itemKey)
          return { _tag: "Revoked", loop: loop.name } satisfies LoopVerdict
        }
        const task = yield* renderPrompt(loop, context).pipe(Effect.either)
        if (task._tag === "Left") {
          yield* failures.record({
            repository: item.repository,
            loop: loop.name,
            item: item.number,
            message: task.left.message
          })
          return { _tag: "RenderFailed", loop: loop.name, reason: task.left.reason } satisfies LoopVerdict
        }
        const submission = itemSubmission(loop, item, task.right, yield* Clock.currentTimeMillis)
        const claim = yield* sink.submit(submission)
        return { _tag: "Submitted", loop: loop.name, submission, claim } satisfies LoopVerdict
      }).pipe(Effect.annotateLogs({ loop: loop.name, item: item.itemKey }))

    /** Runs every Loop of the Item's stream among `loops` (the repository's active Loops), one after another. */
    const evaluate = Effect.fn("EvaluateItem.evaluate")(function* (item: ObservedItem, loops: ReadonlyArray<ItemLoop>) {
      return yield* Effect.forEach(loopsOfStream(loops, item.kind), (loop) => evaluateLoop(loop, item))
    })

    return { evaluate }
  }),
  dependencies: [PollFailures.Default]
}) {}
