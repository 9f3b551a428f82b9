import { Context, Effect, Layer, Option, Struct } from "effect"
import { ledgerPort } from "./ledgerPort"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { AttemptLifecycle } from "./AttemptLifecycle"
import { AttemptPatches } from "./AttemptPatches"
import { CycleBudgets } from "./CycleBudgets"
import { LedgerConnection } from "./LedgerConnection"
import { LoopPauses } from "./LoopPauses"
import { OperatorActions } from "./OperatorActions"
import { ParkedRuns } from "./ParkedRuns"
import { PushRecords } from "./PushRecords"
import { RunClaims } from "./RunClaims"
import { RunLookup } from "./RunLookup"
import type { RunPorts } from "./RunPorts"
import { RunReads } from "./RunReads"
import { Transcripts } from "./Transcripts"
import { makeAttempts } from "./SqlRunStore/attempts"
import { makeClaim } from "./SqlRunStore/claim"
import { makeDuplicateCheck } from "./SqlRunStore/DuplicateCheck"
import { makeFastClaim } from "./SqlRunStore/fastClaim"
import { makeItemActions } from "./SqlRunStore/itemActions"
import { makeLoopPauses } from "./SqlRunStore/loopPauses"
import { makeLedger } from "./SqlRunStore/Ledger"
import { makeOperatorActions } from "./SqlRunStore/operatorActions"
import { makePushes } from "./SqlRunStore/pushes"
import { makeReview } from "./SqlRunStore/review"
import { makeTranscript } from "./SqlRunStore/transcript"

/**
 * The Run ledger on SQLite, built once: every port below is a view of this one store. On a ledger file it also holds
 * a query-only connection for the duplicate check, closed with the scope.
 */
const make = Effect.gen(function* () {
  const ledger = yield* makeLedger
  const { attempts, budgets, runs, sql } = ledger
  const duplicateOf = yield* makeDuplicateCheck(sql, ledger.recent)
  const connection = Option.flatten(yield* Effect.serviceOption(LedgerConnection))

  return {
    ...makeClaim(ledger, duplicateOf, Option.map(connection, (db) => makeFastClaim(db, ledger.recent))),
    ...makeAttempts(ledger),
    ...makeOperatorActions(ledger),
    ...makeItemActions(ledger),
    ...makeReview(ledger),
    ...makePushes(ledger),
    ...makeTranscript(sql),
    generation: (itemKey: ItemKey) => Effect.map(budgets.budget(itemKey), (budget) => budget.generation),
    takeResetPending: (repository: string) => budgets.takeResetPending(repository),
    asks: budgets.asks,
    ...makeLoopPauses(sql),
    getRun: (runId: RunId) => ledger.loadRun(runId),
    openRuns: runs.open,
    awaitingApproval: runs.awaitingApproval,
    attempts: (runId: RunId) => attempts.allOf(runId),
    transitions: (runId: RunId) => runs.transitionsOf(runId)
  }
})

type Ports = RunPorts | RunReads

/**
 * Each port takes the methods of its role from the one store, where the ledger's faults become defects; a consumer
 * asks only for the ports it uses (issue 35).
 */
const ports = Effect.map(make, (store) =>
  Context.make(RunClaims, ledgerPort(RunClaims, Struct.pick(store, "recordAndClaim", "claimQueued", "newestQueued", "strandedQueued", "revokeQueued", "revoke"))).pipe(
    Context.add(OperatorActions, ledgerPort(OperatorActions, Struct.pick(store, "approve", "retry", "cancel", "resolveFailure", "answerReview"))),
    Context.add(ParkedRuns, ledgerPort(ParkedRuns, Struct.pick(store, "parkForApproval", "awaitingApproval", "expireApproval"))),
    Context.add(AttemptLifecycle, ledgerPort(AttemptLifecycle, Struct.pick(store, "beginAttempt", "recordSession", "finishAttempt"))),
    Context.add(AttemptPatches, ledgerPort(AttemptPatches, Struct.pick(store, "recordPatch", "heldAttempt", "latestPatch"))),
    Context.add(PushRecords, ledgerPort(PushRecords, Struct.pick(store, "recordPush", "recordedPush"))),
    Context.add(Transcripts, ledgerPort(Transcripts, Struct.pick(store, "appendTranscript", "transcriptPosition", "transcript"))),
    Context.add(LoopPauses, ledgerPort(LoopPauses, Struct.pick(store, "setPaused", "pausedLoops"))),
    Context.add(CycleBudgets, ledgerPort(CycleBudgets, Struct.pick(store, "resetCycleBudget", "generation", "takeResetPending", "asks"))),
    Context.add(RunLookup, ledgerPort(RunLookup, Struct.pick(store, "getRun", "openRuns", "attempts", "transitions"))),
    Context.add(RunReads, ledgerPort(RunReads, Struct.pick(store, "getRun", "latestPatch", "generation", "asks", "transitions")))
  ))

/** The ledger's Run ports, and its reads for the Board (`RunReads`), all on one store; needs `Sql.layer` below it. */
// A ledger that cannot be read as the store starts (the duplicate check's first read) is a defect, as at the ports.
export const layer: Layer.Layer<Ports, never, SqlClient.SqlClient> = Layer.orDie(Layer.scopedContext(ports))
