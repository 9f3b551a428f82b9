import { Effect, Layer } from "effect"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import { Executor } from "@usine/engine/Executor"

const describe = (outcome: AttemptOutcome): string => {
  switch (outcome._tag) {
    case "Succeeded":
      return outcome.result.pullRequestUrl === undefined ? "succeeded" : `succeeded: ${outcome.result.pullRequestUrl}`
    case "Failed":
      return `failed (${outcome.failure._tag}): ${outcome.failure.reason}`
    case "Canceled":
      return `canceled: ${outcome.reason}`
  }
}

/**
 * The executor with a log line when an Attempt starts (or is followed again) and when it ends, each annotated with its
 * Run, Loop and Item: the operator's trail of what ran where, in the daemon's log.
 */
export const logAttempts = <A, E, R>(executor: Layer.Layer<A | Executor, E, R>): Layer.Layer<A | Executor, E, R> =>
  Layer.effect(
    Executor,
    Effect.map(Executor, (inner) =>
      Executor.of({
        ...inner,
        execute: (request) => {
          const { attempt, run } = request
          const label = `attempt ${attempt.number}`
          return Effect.logInfo(request.reattach ? `${label} followed again on ${request.worker}` : `${label} started on ${request.worker}`).pipe(
            Effect.zipRight(inner.execute(request)),
            Effect.tap((outcome) =>
              outcome._tag === "Failed" ? Effect.logWarning(`${label} ${describe(outcome)}`) : Effect.logInfo(`${label} ${describe(outcome)}`)
            ),
            Effect.annotateLogs({ runId: run.id, loop: run.loop, item: run.itemKey })
          )
        }
      })
    )
  ).pipe(Layer.provideMerge(executor)) // keeps what else the executor layer provides (WorkerExecutorLayer's WorkerPool)
