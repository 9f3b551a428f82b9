import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import { makeAttemptQueries } from "./AttemptQueries"
import { makeBudgetQueries } from "./BudgetQueries"
import { makeEventQueries } from "./EventQueries"
import { makeRunQueries } from "./RunQueries"
import { makeRunWriter } from "./RunWriter"

/** Everything a store method needs: the queries, the Run writer, and one transaction wrapper. */
export const makeLedger = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const runs = makeRunQueries(sql)
  return {
    sql,
    /** The Run, or `RunNotFound`. */
    loadRun: (runId: RunId) =>
      runs.byId(runId).pipe(
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new RunNotFound({ runId })), onSome: Effect.succeed }))
      ),
    runs,
    events: makeEventQueries(sql),
    budgets: makeBudgetQueries(sql),
    attempts: makeAttemptQueries(sql),
    writer: makeRunWriter(runs),
    /** One transaction; any failure rolls every write back. SQL failures become defects here, once. */
    transaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      sql.withTransaction(effect).pipe(
        Effect.catchAll((error) => (error instanceof SqlError ? Effect.die(error) : Effect.fail(error as E)))
      )
  }
})

export type Ledger = Effect.Effect.Success<typeof makeLedger>
