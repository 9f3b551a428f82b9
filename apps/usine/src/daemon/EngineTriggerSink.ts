import { Effect, Layer, Option } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import { RunEngine } from "@usine/engine/RunEngine"
import { type ClaimOutcome, TriggerRefused, TriggerSink } from "@usine/triggers/TriggerSink"

const refused = (error: { readonly loop: string; readonly message: string }) =>
  new TriggerRefused({ loop: error.loop, detail: error.message })

/** One line per claim that changed something, annotated with its Run, Loop and Item. */
const logClaim = (submission: Submission, claim: ClaimOutcome) => {
  const log = (() => {
    switch (claim._tag) {
      case "Claimed":
        return claim.opened
          ? Effect.logInfo(`run opened${Option.isSome(claim.superseded) ? `, superseding ${claim.superseded.value}` : ""}`).pipe(
              Effect.annotateLogs("runId", claim.run.id)
            )
          : Effect.void
      case "Queued":
        return Effect.logInfo(`event queued behind running run ${claim.behind}`)
      case "Ignored":
        return Effect.void
      case "CycleBlocked":
        return Effect.logWarning(`cycle budget used up (${claim.ask.limit} runs); reset it on the board to go on`)
    }
  })()
  return log.pipe(Effect.annotateLogs({ loop: submission.loop, item: submission.itemKey }))
}

/** The triggers' decisions go to the engine: `submit` claims a Run, `revoke` cancels unstarted ones. */
export const EngineTriggerSink: Layer.Layer<TriggerSink, never, RunEngine> = Layer.effect(
  TriggerSink,
  Effect.map(RunEngine, (engine) =>
    TriggerSink.of({
      submit: (submission) =>
        engine.submit(submission).pipe(
          Effect.tap((claim) => logClaim(submission, claim)),
          Effect.catchTags({ LoopNotConfigured: (e) => Effect.fail(refused(e)), LoopPaused: (e) => Effect.fail(refused(e)) })
        ),
      revoke: (loop, itemKey) =>
        engine.revoke(loop, itemKey).pipe(
          Effect.flatMap((revoked) =>
            revoked.length === 0
              ? Effect.void
              : Effect.logInfo(`revoked ${revoked.join(", ")}: the item no longer matches`).pipe(
                  Effect.annotateLogs({ loop, item: itemKey })
                )
          ),
          Effect.catchTag("LoopPaused", (e) => Effect.fail(refused(e)))
        )
    })
  )
)
