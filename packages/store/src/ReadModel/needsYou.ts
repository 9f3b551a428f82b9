import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Schema } from "effect"
import { AttemptOutcome } from "@usine/core/attempt/outcome"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { CycleAsk, makeOpenAsks } from "./CycleAsk"
import { RunSummary, SUMMARY_COLUMNS, SummaryRow, summaryOf } from "./RunSummary"
import { LINE_COLUMNS, TranscriptLine, TranscriptLineFromRow } from "./TranscriptLine"
import { findAllByKey } from "../findByKey"
import { indexedBy } from "../SqlDialect"

/** A Run parked on its Loop's approval gate, with the prompt it would run. */
const WaitingRun = Schema.Struct({ run: RunSummary, task: Schema.String })
type WaitingRun = typeof WaitingRun.Type

/**
 * A Run parked at the pull-request gate (ADR 0063): the held Attempt and its unified diff (cut at 256 KiB, `patchCut`),
 * nothing pushed yet.
 */
const ReviewingRun = Schema.Struct({
  run: RunSummary,
  task: Schema.String,
  attemptId: Schema.String.pipe(Schema.fromBrand(AttemptId)),
  attemptNumber: Schema.Number,
  summary: Schema.String,
  patch: Schema.String,
  patchCut: Schema.Boolean
})
type ReviewingRun = typeof ReviewingRun.Type

/** Why an Attempt failed, flattened from its typed failure. */
export const FailureView = Schema.Struct({
  tag: Schema.String,
  reason: Schema.String,
  evidence: Schema.String,
  message: Schema.String
})
export type FailureView = typeof FailureView.Type

/** A Failed Run whose latest failed Attempt nobody marked handled. */
const UnresolvedFailure = Schema.Struct({
  run: RunSummary,
  attemptId: Schema.String.pipe(Schema.fromBrand(AttemptId)),
  attemptNumber: Schema.Number,
  failure: FailureView,
  /** The Attempt's last transcript rows, oldest first. */
  lastLines: Schema.Array(TranscriptLine)
})
type UnresolvedFailure = typeof UnresolvedFailure.Type

export const NeedsYou = Schema.Struct({
  waiting: Schema.Array(WaitingRun),
  /** More Waiting Runs exist than the list holds. */
  moreWaiting: Schema.Boolean,
  /** Runs at the pull-request gate, oldest first. */
  reviewing: Schema.Array(ReviewingRun),
  moreReviewing: Schema.Boolean,
  failed: Schema.Array(UnresolvedFailure),
  moreFailed: Schema.Boolean,
  asks: Schema.Array(CycleAsk)
})
export type NeedsYou = typeof NeedsYou.Type

/** How many transcript rows a failure shows. */
const FAILURE_TAIL = 5

const FailedRow = Schema.Struct({
  ...SummaryRow.fields,
  attempt_id: Schema.String,
  attempt_number: Schema.Number,
  outcome_json: Schema.parseJson(AttemptOutcome)
})

export const failureView = (outcome: AttemptOutcome): FailureView =>
  outcome._tag === "Failed"
    ? { tag: outcome.failure._tag, reason: outcome.failure.reason, evidence: outcome.failure.evidence, message: outcome.failure.message }
    : { tag: outcome._tag, reason: "", evidence: "", message: "" }

/** Needs you: Waiting Runs oldest first, unresolved failures newest first, open Asks; each list bounded. */
export const makeNeedsYou = (sql: SqlClient.SqlClient) => {
  const waiting = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Schema.Struct({ ...SummaryRow.fields, task: Schema.String }),
    execute: (limit) =>
      sql`SELECT ${sql.literal(SUMMARY_COLUMNS)}, r.task FROM usine_runs r
          WHERE r.state = 'Waiting' ORDER BY r.received_at, r.id LIMIT ${limit}`
  })
  // Each Run's latest Attempt looked up by key, Run by Run in the list's order: joined on `number = max(number)`,
  // PostgreSQL hashed every Attempt of the ledger instead (500 ms a page at 100,000 Runs; bench/RESULTS.md).
  const latestAttempt = sql`(SELECT m.id FROM usine_attempts m WHERE m.run_id = r.id ORDER BY m.number DESC LIMIT 1)`
  // The partial index orders failed Runs by `updated_at`; `state = 'Failed'` must stay a literal for it to apply.
  const failed = SqlSchema.findAll({
    Request: Schema.Number,
    Result: FailedRow,
    execute: (limit) =>
      sql`SELECT ${sql.literal(SUMMARY_COLUMNS)}, a.id AS attempt_id, a.number AS attempt_number, a.outcome_json
          FROM usine_runs r ${indexedBy(sql, "usine_runs_failed_updated")} JOIN usine_attempts a ON a.id = ${latestAttempt}
          WHERE r.state = 'Failed' AND a.outcome_json IS NOT NULL
            AND (r.resolved_failure_attempt_id IS NULL OR r.resolved_failure_attempt_id <> a.id)
          ORDER BY r.updated_at DESC, r.id DESC LIMIT ${limit}`
  })
  const reviewing = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Schema.Struct({
      ...SummaryRow.fields,
      task: Schema.String,
      attempt_id: Schema.String,
      attempt_number: Schema.Number,
      outcome_json: Schema.parseJson(AttemptOutcome),
      patch: Schema.NullOr(Schema.String),
      patch_cut: Schema.Number
    }),
    execute: (limit) =>
      sql`SELECT ${sql.literal(SUMMARY_COLUMNS)}, r.task, a.id AS attempt_id, a.number AS attempt_number, a.outcome_json,
            a.patch, a.patch_cut
          FROM usine_runs r JOIN usine_attempts a ON a.id = ${latestAttempt}
          WHERE r.state = 'Reviewing' AND a.outcome_json IS NOT NULL ORDER BY r.updated_at, r.id LIMIT ${limit}`
  })
  const tail = findAllByKey(TranscriptLineFromRow, (attemptId) =>
    sql`SELECT ${sql.literal(LINE_COLUMNS)} FROM usine_transcript_rows
        WHERE attempt_id = ${attemptId} ORDER BY seq DESC LIMIT ${FAILURE_TAIL}`
  )
  const asks = makeOpenAsks(sql)

  return Effect.fn("ReadModel.needsYou")(function* (limit: number) {
    const waitingRows = yield* waiting(limit + 1)
    const failedRows = yield* failed(limit + 1)
    const reviewingRows = yield* reviewing(limit + 1)
    const waitingRuns = waitingRows.slice(0, limit).map(({ task, ...row }): WaitingRun => ({ run: summaryOf(row), task }))
    const failures = yield* Effect.forEach(failedRows.slice(0, limit), (row) =>
      Effect.gen(function* () {
        const { attempt_id, attempt_number, outcome_json, ...runRow } = row
        const lines = yield* tail(attempt_id)
        return {
          run: summaryOf(runRow),
          attemptId: AttemptId(attempt_id),
          attemptNumber: attempt_number,
          failure: failureView(outcome_json),
          lastLines: [...lines].reverse()
        } satisfies UnresolvedFailure
      })
    )
    return {
      waiting: waitingRuns,
      moreWaiting: waitingRows.length > limit,
      reviewing: reviewingRows.slice(0, limit).map(({ attempt_id, attempt_number, outcome_json, patch, patch_cut, task, ...row }): ReviewingRun => ({
        run: summaryOf(row),
        task,
        attemptId: AttemptId(attempt_id),
        attemptNumber: attempt_number,
        summary: outcome_json._tag === "Succeeded" ? outcome_json.result.summary ?? "" : "",
        patch: patch ?? "",
        patchCut: patch_cut === 1
      })),
      moreReviewing: reviewingRows.length > limit,
      failed: failures,
      moreFailed: failedRows.length > limit,
      asks: yield* asks(limit)
    } satisfies NeedsYou
  })
}
