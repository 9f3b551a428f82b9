import { Effect, Schedule } from "effect"
import { RunEngine } from "@usine/engine/RunEngine"
import { RunLookup } from "@usine/store/RunLookup"

/** `usine demo --auto-approve`: every Waiting Run is approved through the engine, as the Board's button does. */
export const autoApprove = Effect.gen(function* () {
  const lookup = yield* RunLookup
  const engine = yield* RunEngine
  const open = yield* lookup.openRuns
  for (const run of open.filter((r) => r.state._tag === "Waiting")) {
    const { approved } = yield* engine.approve(run.id).pipe(Effect.orElseSucceed(() => ({ approved: false })))
    if (approved) yield* Effect.logInfo(`auto-approved run ${run.id} of ${run.loop}`).pipe(Effect.annotateLogs({ runId: run.id }))
  }
}).pipe(Effect.repeat(Schedule.spaced("1 second")), Effect.asVoid)
