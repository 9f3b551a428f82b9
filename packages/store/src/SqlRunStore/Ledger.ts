import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import { makeAttemptQueries } from "./AttemptQueries"
import { makeBudgetQueries } from "./BudgetQueries"
import { makeEventQueries } from "./EventQueries"
import { makeRecentClaims } from "./RecentClaims"
import { makeRunQueries } from "./RunQueries"
import { makeRunWriter } from "./RunWriter"

/** Everything a store method needs: the queries, the Run writer, and one transaction wrapper. */
export const makeLedger = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const recent = makeRecentClaims()
  const runs = makeRunQueries(sql, recent.forget)
  return {
    sql,
    /** Final answers of recent claims, forgotten by every write of their rows (ADR 0080). */
    recent,
    /** The Run, or `RunNotFound`. */
    loadRun: (runId: RunId) =>
      runs.byId(runId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new RunNotFound({ runId })), onSome: Effect.succeed }))
      ),
    runs,
    events: makeEventQueries(sql, recent.forget),
    budgets: makeBudgetQueries(sql),
    attempts: makeAttemptQueries(sql),
    writer: makeRunWriter(runs),
    /**
     * One transaction; any failure rolls every write back (a SQL failure becomes a defect at the port, `ledgerPort`).
     * The outermost one settles `recent` when it ends: what it wrote is forgotten, what it answered for good kept if it
     * committed.
     */
    transaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
        sql.withTransaction(effect).pipe(
          Effect.onExit((exit) => (Option.isSome(outer) ? Effect.void : Effect.sync(() => recent.settle(Exit.isSuccess(exit)))))
        ))
  }
})

export type Ledger = Effect.Effect.Success<typeof makeLedger>
