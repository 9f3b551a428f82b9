import { Effect, Layer, Option } from "effect"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { LedgerConnection } from "./LedgerConnection"
import { RunReads } from "./RunReads"
import { RunStore } from "./RunStore"
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
 * The RunStore on the SQLite ledger; needs `Sql.layer` (or `Sql.layerUnlocked`) below it. On a ledger file it also
 * holds a query-only connection for the duplicate check, closed with the scope.
 */
const make = Effect.gen(function* () {
  const ledger = yield* makeLedger
  const { attempts, budgets, runs, sql } = ledger
  const duplicateOf = yield* makeDuplicateCheck(sql, ledger.recent)
  const connection = Option.flatten(yield* Effect.serviceOption(LedgerConnection))

  return RunStore.of({
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
  })
})

/** The ledger's RunStore, and its reads for the Board (`RunReads`) on the same store. */
export const layer: Layer.Layer<RunStore | RunReads, never, SqlClient.SqlClient> = RunReads.fromRunStore.pipe(
  Layer.provideMerge(Layer.scoped(RunStore, make))
)
