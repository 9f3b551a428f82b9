import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Schema } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import { AttemptFromRow } from "./AttemptRow"
import { findAllByKey, findOneByKey } from "../findByKey"

const OutcomeJson = Schema.parseJson(AttemptOutcome)

/** Reads and writes of `usine_attempts`; SQL failures are defects. */
export const makeAttemptQueries = (sql: SqlClient.SqlClient) => {
  const byId = findOneByKey(AttemptFromRow, (id) => sql`SELECT * FROM usine_attempts WHERE id = ${id}`)
  const openOf = findOneByKey(AttemptFromRow, (runId) =>
    sql`SELECT * FROM usine_attempts WHERE run_id = ${runId} AND outcome_json IS NULL`
  )
  const latestOf = findOneByKey(AttemptFromRow, (runId) =>
    sql`SELECT * FROM usine_attempts WHERE run_id = ${runId} ORDER BY number DESC LIMIT 1`
  )
  const allOf = findAllByKey(AttemptFromRow, (runId) =>
    sql`SELECT * FROM usine_attempts WHERE run_id = ${runId} ORDER BY number`
  )

  return {
    byId: (id: AttemptId) => byId(id),
    /** The Run's open Attempt; the unique index allows at most one. */
    openOf: (runId: RunId) => openOf(runId),
    latestOf: (runId: RunId) => latestOf(runId),
    allOf: (runId: RunId) => allOf(runId),
    /** Attempt numbers continue across operator retries. */
    nextNumber: (runId: RunId) =>
      sql<{ n: number | null }>`SELECT max(number) AS n FROM usine_attempts WHERE run_id = ${runId}`.pipe(
        Effect.map((rows) => (rows[0]?.n ?? 0) + 1)
      ),
    insert: (attempt: Attempt) =>
      Schema.encode(AttemptFromRow)(attempt).pipe(
        Effect.flatMap((row) => sql`INSERT INTO usine_attempts ${sql.insert(row)}`)
      ),
    /** Records the outcome of an open Attempt; false when it is not open. */
    close: (id: AttemptId, outcome: AttemptOutcome, endedAt: number) =>
      Schema.encode(OutcomeJson)(outcome).pipe(
        Effect.flatMap((json) =>
          sql`UPDATE usine_attempts SET outcome_json = ${json}, ended_at = ${endedAt}
              WHERE id = ${id} AND outcome_json IS NULL RETURNING id`
        ),
        Effect.map((rows) => rows.length === 1)
      ),
    setSession: (id: AttemptId, session: string) =>
      sql`UPDATE usine_attempts SET session = ${session} WHERE id = ${id} AND outcome_json IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1)
      )
  }
}

