import { Clock, Effect } from "effect"
import { contentHash } from "@usine/core/content/contentHash"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { renderPrompt } from "@usine/core/config/renderPrompt"
import type { TriggerContext } from "@usine/core/config/TriggerContext"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { TriggerRefusals } from "@usine/store/TriggerRefusals"
import { type AssessedItem, ItemTrust } from "./ItemTrust"
import { PollFailures } from "./PollFailures"
import type { ObservedItem } from "./ObserveItem"
import { loopsOfStream } from "./TriggerConfig"
import { type ClaimOutcome, TriggerSink } from "./TriggerSink"

/** What one Loop did with one Item. */
export type LoopVerdict =
  | { readonly _tag: "Revoked"; readonly loop: string }
  | { readonly _tag: "Submitted"; readonly loop: string; readonly submission: Submission; readonly claim: ClaimOutcome }
  | { readonly _tag: "RenderFailed"; readonly loop: string; readonly reason: string }
  /** `if:` holds but the trigger is not trusted (ADR 0032): recorded as an ignored Event, nothing submitted. */
  | { readonly _tag: "Untrusted"; readonly loop: string; readonly reason: string }

/**
 * The Submission of an Item Loop whose `if:` holds; its Event id is the seed's dedup key. `context` is the Item as
 * the Loop sees it, and its hash the Event's content hash (ADR 0055): an untrusted comment, a hidden edit or a field
 * the Loop cannot read leaves it as it was, so it records no Event, supersedes nothing and spends no cycle.
 */
const itemSubmission = (
  loop: ItemLoop,
  item: ObservedItem,
  context: TriggerContext,
  task: string,
  receivedAt: number
): Submission => {
  const hash = contentHash(context.item)
  return {
    eventId: itemEventIdOf({
      loop: loop.name,
      repository: item.repository,
      number: item.number,
      contentHash: hash,
      generation: item.generation
    }),
    loop: loop.name,
    itemKey: item.itemKey,
    repository: item.repository,
    number: item.number,
    generation: item.generation,
    contentHash: hash,
    ...(item.kind === "pull_request" && item.fields.headSha !== "" ? { headSha: item.fields.headSha } : {}),
    task,
    agent: loop.agent,
    approvalRequired: loop.approval === "required",
    maxCycles: loop.maxCycles,
    receivedAt
  }
}

/**
 * Evaluates each active Loop of the Item's stream on the Item as trust lets the Loop see it (sanitized, untrusted
 * comments left out): `if:` false revokes; true with an untrusted trigger records the refusal; true and trusted
 * renders the prompt and submits. A prompt that fails to render is that Loop's poll failure alone; an `if:` that
 * fails, a permission lookup that fails, or a refused call fails the Item, so the poll keeps its cursor and reads
 * the Item again.
 */
export class EvaluateItem extends Effect.Service<EvaluateItem>()("usine/EvaluateItem", {
  effect: Effect.gen(function* () {
    const sink = yield* TriggerSink
    const failures = yield* PollFailures
    const trust = yield* ItemTrust
    const refusals = yield* TriggerRefusals

    const evaluateLoop = (loop: ItemLoop, item: ObservedItem, assessed: AssessedItem) =>
      Effect.gen(function* () {
        const context: TriggerContext = { item: yield* assessed.context(loop), repository: item.repository }
        if (!(yield* evaluateIf(loop, context))) {
          yield* sink.revoke(loop.name, item.itemKey)
          return { _tag: "Revoked", loop: loop.name } satisfies LoopVerdict
        }
        const verdict = yield* assessed.judge(loop)
        if (verdict._tag === "Refused") {
          const refused = itemSubmission(loop, item, context, "", yield* Clock.currentTimeMillis)
          if (yield* refusals.record(refused, verdict.reason)) {
            yield* Effect.logWarning(`trigger refused: ${verdict.reason}`)
          }
          return { _tag: "Untrusted", loop: loop.name, reason: verdict.reason } satisfies LoopVerdict
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
        const submission = itemSubmission(loop, item, context, task.right, yield* Clock.currentTimeMillis)
        const claim = yield* sink.submit(submission)
        return { _tag: "Submitted", loop: loop.name, submission, claim } satisfies LoopVerdict
      }).pipe(Effect.annotateLogs({ loop: loop.name, item: item.itemKey }))

    /** Runs every Loop of the Item's stream among `loops` (the repository's active Loops), one after another. */
    const evaluate = Effect.fn("EvaluateItem.evaluate")(function* (item: ObservedItem, loops: ReadonlyArray<ItemLoop>) {
      const ofStream = loopsOfStream(loops, item.kind)
      if (ofStream.length === 0) return []
      const assessed = yield* trust.assess(item)
      return yield* Effect.forEach(ofStream, (loop) => evaluateLoop(loop, item, assessed))
    })

    return { evaluate }
  }),
  dependencies: [PollFailures.Default, ItemTrust.Default]
}) {}
