import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Effect, Option, Schema } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"
import { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import { Run } from "@usine/core/run/Run"
import { Transition } from "@usine/core/run/Transition"
import { Usage } from "@usine/core/transcript/TranscriptRow"
import { makeAttemptQueries } from "../SqlRunStore/AttemptQueries"
import { RunNote } from "../RunNote"
import { makeNoteQueries } from "../RunNote/noteQueries"
import { makeRunQueries } from "../SqlRunStore/RunQueries"
import { RunStateTagSchema } from "./RunSummary"
import { LINE_COLUMNS, TranscriptLineFromRow } from "./TranscriptLine"
import { addUsage, zeroUsage } from "@usine/core/usage/usageFigures"
import { findAllByKey, findOneByKey } from "../findByKey"

const AttemptUsage = Schema.Struct({ attemptId: Schema.String.pipe(Schema.fromBrand(AttemptId)), usage: Usage })
type AttemptUsage = typeof AttemptUsage.Type

/** Everything the ledger knows of one Run but its transcript. */
export const RunDetail = Schema.Struct({
  run: Run,
  attempts: Schema.Array(Attempt),
  transitions: Schema.Array(Transition),
  /** Why it waited and what operators edited, oldest first (ADR 0049). */
  notes: Schema.Array(RunNote),
  /** The newest usage row of each Attempt: a session total, never added to an earlier row of the same Attempt. */
  usageByAttempt: Schema.Array(AttemptUsage),
  /** The sum over Attempts; absent when no Attempt reported usage. */
  usage: Schema.optional(Usage)
})
export type RunDetail = typeof RunDetail.Type

/**
 * What a live Run page polls: any write to the Run bumps `version`; a new Attempt changes `latestAttemptId`; a new
 * note (a hold, a release) changes `latestNoteId` without a write to the Run.
 */
export interface RunPulse {
  readonly version: number
  readonly state: typeof RunStateTagSchema.Type
  readonly latestAttemptId: AttemptId | undefined
  /** 0 before the first note. */
  readonly latestNoteId: number
}

export interface TranscriptWindow {
  /** Rows with a larger sequence number only. */
  readonly afterSeq?: number | undefined
  readonly limit: number
  /** The newest `limit` rows instead of the oldest (still returned oldest first). */
  readonly newest?: boolean | undefined
}

/** The total of a Run's usage rows; none without rows. */
const sumUsage = (usages: ReadonlyArray<Usage>): Usage | undefined =>
  usages.length === 0 ? undefined : usages.reduce(addUsage, zeroUsage)

/** One Run's page: the Run, its Attempts, its transition log and notes, usage, and transcript windows. */
export const makeRunDetail = (sql: SqlClient.SqlClient) => {
  const runs = makeRunQueries(sql)
  const attempts = makeAttemptQueries(sql)
  const notes = makeNoteQueries(sql)
  const usage = findAllByKey(
    Schema.Struct({ attempt_id: Schema.String, usage_json: Schema.parseJson(Usage) }),
    (runId) =>
      sql`SELECT t.attempt_id, t.usage_json FROM usine_attempts a JOIN usine_transcript_rows t ON t.attempt_id = a.id
          WHERE a.run_id = ${runId} AND t.usage_json IS NOT NULL
            AND t.seq = (SELECT max(u.seq) FROM usine_transcript_rows u
              WHERE u.attempt_id = a.id AND u.usage_json IS NOT NULL)
          ORDER BY a.number`
  )
  const oldest = SqlSchema.findAll({
    Request: Schema.Struct({ attemptId: Schema.String, afterSeq: Schema.Number, limit: Schema.Number }),
    Result: TranscriptLineFromRow,
    execute: ({ afterSeq, attemptId, limit }) =>
      sql`SELECT ${sql.literal(LINE_COLUMNS)} FROM usine_transcript_rows
          WHERE attempt_id = ${attemptId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`
  })
  const newest = SqlSchema.findAll({
    Request: Schema.Struct({ attemptId: Schema.String, afterSeq: Schema.Number, limit: Schema.Number }),
    Result: TranscriptLineFromRow,
    execute: ({ afterSeq, attemptId, limit }) =>
      sql`SELECT ${sql.literal(LINE_COLUMNS)} FROM usine_transcript_rows
          WHERE attempt_id = ${attemptId} AND seq > ${afterSeq} ORDER BY seq DESC LIMIT ${limit}`
  })
  const pulse = findOneByKey(
    Schema.Struct({
      version: Schema.Number,
      state: RunStateTagSchema,
      latest: Schema.NullOr(Schema.String),
      note: Schema.NullOr(Schema.Number)
    }),
    (runId) =>
      sql`SELECT r.version, r.state,
            (SELECT a.id FROM usine_attempts a WHERE a.run_id = r.id ORDER BY a.number DESC LIMIT 1) AS latest,
            (SELECT max(n.id) FROM usine_run_notes n WHERE n.run_id = r.id) AS note
          FROM usine_runs r WHERE r.id = ${runId}`
  )

  return {
    run: Effect.fn("ReadModel.run")(function* (runId: RunId) {
      const run = yield* runs.byId(runId)
      if (Option.isNone(run)) return yield* new RunNotFound({ runId })
      const usages = (yield* usage(runId)).map(
        (row): AttemptUsage => ({ attemptId: AttemptId(row.attempt_id), usage: row.usage_json })
      )
      const total = sumUsage(usages.map((u) => u.usage))
      return {
        run: run.value,
        attempts: yield* attempts.allOf(runId),
        transitions: yield* runs.transitionsOf(runId),
        notes: yield* notes.ofRun(runId),
        usageByAttempt: usages,
        ...(total === undefined ? {} : { usage: total })
      } satisfies RunDetail
    }),

    transcript: Effect.fn("ReadModel.transcript")(function* (attemptId: AttemptId, window: TranscriptWindow) {
      const request = { attemptId, afterSeq: window.afterSeq ?? 0, limit: window.limit }
      if (window.newest !== true) return yield* oldest(request)
      return [...(yield* newest(request))].reverse()
    }),

    runPulse: Effect.fn("ReadModel.runPulse")(function* (runId: RunId) {
      return Option.map(yield* pulse(runId), (row): RunPulse => ({
        version: row.version,
        state: row.state,
        latestAttemptId: row.latest === null ? undefined : AttemptId(row.latest),
        latestNoteId: row.note ?? 0
      }))
    })
  }
}
