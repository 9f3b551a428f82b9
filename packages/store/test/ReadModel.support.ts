import { Effect, Layer } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed } from "@usine/core/attempt/outcome"
import type { RunId } from "@usine/core/ids/RunId"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"
import * as ReadModel from "@usine/store/ReadModel"
import { openedRun, storesAt, submission } from "./fixtures/testLedger"
import type { LedgerEngine } from "@usine/testkit/ledgerEngines"
import { runLedger } from "@usine/testkit/runLedger"

/** The read model over the real stores on a fresh ledger of the engine. */
export const testReadModel = (engine: LedgerEngine) =>
  Layer.unwrapScoped(Effect.map(engine.place, (place) => ReadModel.layer.pipe(Layer.provideMerge(storesAt(engine, place)))))

/** Opens a Run for issue `number` (its own Item, so nothing supersedes it). */
export const open = (input: Parameters<typeof submission>[0]) =>
  Effect.flatMap(runLedger, (store) => store.recordAndClaim(submission(input))).pipe(Effect.map(openedRun))

/** Starts an Attempt, writes its transcript, and fails it with an AgentFailure. */
export const fail = (runId: RunId, reason: string, rows: ReadonlyArray<TranscriptEntry> = []) =>
  Effect.gen(function* () {
    const store = yield* runLedger
    const begun = yield* store.beginAttempt(runId, { live: () => false })
    if (begun._tag === "Failed") throw new Error("expected an Attempt")
    if (rows.length > 0) yield* store.appendTranscript(begun.attempt.id, rows)
    yield* store.finishAttempt(
      begun.attempt.id,
      new AttemptFailed({ failure: new AgentFailure({ reason, evidence: `evidence of ${reason}` }) })
    )
    return begun.attempt
  })

export const line = (text: string, at = 0): TranscriptEntry => ({ kind: "assistant", text, at })
