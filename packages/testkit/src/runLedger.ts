import { Context, Effect } from "effect"
import { AttemptLifecycle } from "@usine/store/AttemptLifecycle"
import { AttemptPatches } from "@usine/store/AttemptPatches"
import { CycleBudgets } from "@usine/store/CycleBudgets"
import { LoopPauses } from "@usine/store/LoopPauses"
import { OperatorActions } from "@usine/store/OperatorActions"
import { ParkedRuns } from "@usine/store/ParkedRuns"
import { PushRecords } from "@usine/store/PushRecords"
import { RunClaims } from "@usine/store/RunClaims"
import { RunLookup } from "@usine/store/RunLookup"
import { Transcripts } from "@usine/store/Transcripts"
import type { RunPorts } from "@usine/store/RunPorts"

/**
 * The Run ports of a context as one object, for tests and benches that drive the ledger through every role in turn
 * (claim, begin, finish, read back). Runtime code asks for the ports it uses instead (issue 35).
 */
export const runLedgerOf = (context: Context.Context<RunPorts>) => ({
  ...Context.get(context, RunClaims),
  ...Context.get(context, OperatorActions),
  ...Context.get(context, ParkedRuns),
  ...Context.get(context, AttemptLifecycle),
  ...Context.get(context, AttemptPatches),
  ...Context.get(context, PushRecords),
  ...Context.get(context, Transcripts),
  ...Context.get(context, LoopPauses),
  ...Context.get(context, CycleBudgets),
  ...Context.get(context, RunLookup)
})

export type RunLedger = ReturnType<typeof runLedgerOf>

/** The Run ports of the current context as one object (see `runLedgerOf`). */
export const runLedger: Effect.Effect<RunLedger, never, RunPorts> = Effect.map(Effect.context<RunPorts>(), runLedgerOf)
