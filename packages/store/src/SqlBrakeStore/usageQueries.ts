import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Effect, Schema } from "effect"
import { budgetDayOf } from "@usine/core/config/BudgetConfig"
import { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { makeNoteQueries } from "../RunNote/noteQueries"
import type { CapRaise, DayUsage, UsageOwner, UsageScope } from "../BrakeStore"
import { findAllByKey } from "../findByKey"

const UsageColumns = {
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  cached_input_tokens: Schema.Number,
  cost_usd: Schema.NullOr(Schema.Number)
}

const usageOf = (row: { input_tokens: number; output_tokens: number; cached_input_tokens: number; cost_usd: number | null }): Usage => ({
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
  cachedInputTokens: row.cached_input_tokens,
  ...(row.cost_usd === null ? {} : { costUsd: row.cost_usd })
})

/** The increase of a session total over the previous one; a total that went down adds nothing. */
const increase = (next: Usage, previous: Usage | undefined): Usage => ({
  inputTokens: Math.max(0, next.inputTokens - (previous?.inputTokens ?? 0)),
  outputTokens: Math.max(0, next.outputTokens - (previous?.outputTokens ?? 0)),
  cachedInputTokens: Math.max(0, next.cachedInputTokens - (previous?.cachedInputTokens ?? 0)),
  ...(next.costUsd === undefined ? {} : { costUsd: Math.max(0, next.costUsd - (previous?.costUsd ?? 0)) })
})

const isZero = (u: Usage) => u.inputTokens === 0 && u.outputTokens === 0 && u.cachedInputTokens === 0 && !u.costUsd

/** Usage per Attempt and per UTC day, and daily cap raises; SQL failures are defects. */
export const makeUsageQueries = (sql: SqlClient.SqlClient) => {
  const notes = makeNoteQueries(sql)
  const attemptTotal = findAllByKey(Schema.Struct(UsageColumns), (attemptId) =>
    sql`SELECT input_tokens, output_tokens, cached_input_tokens, cost_usd FROM usine_attempt_usage
        WHERE attempt_id = ${attemptId}`
  )
  const ofRun = findAllByKey(
    Schema.Struct({ attempt_id: Schema.String, number: Schema.Number, ...UsageColumns }),
    (runId) =>
      sql`SELECT u.attempt_id, a.number, u.input_tokens, u.output_tokens, u.cached_input_tokens, u.cost_usd
          FROM usine_attempt_usage u JOIN usine_attempts a ON a.id = u.attempt_id
          WHERE u.run_id = ${runId} ORDER BY a.number`
  )
  const ofDays = SqlSchema.findAll({
    Request: Schema.Struct({ from: Schema.String, to: Schema.String }),
    Result: Schema.Struct({ day: Schema.String, scope: Schema.Literal("global", "loop", "repository"), name: Schema.String, ...UsageColumns }),
    execute: ({ from, to }) =>
      sql`SELECT * FROM usine_usage_days WHERE day BETWEEN ${from} AND ${to} ORDER BY day, scope, name`
  })
  const raisesOf = findAllByKey(
    Schema.Struct({
      day: Schema.String,
      scope: Schema.Literal("global", "loop"),
      name: Schema.String,
      tokens: Schema.Number,
      cost_usd: Schema.Number
    }),
    (day) => sql`SELECT day, scope, name, tokens, cost_usd FROM usine_cap_raises WHERE day = ${day}`
  )

  const addToDay = (day: string, scope: UsageScope, name: string, delta: Usage) =>
    sql`INSERT INTO usine_usage_days AS d (day, scope, name, input_tokens, output_tokens, cached_input_tokens, cost_usd)
        VALUES (${day}, ${scope}, ${name}, ${delta.inputTokens}, ${delta.outputTokens}, ${delta.cachedInputTokens},
          ${delta.costUsd ?? null})
        ON CONFLICT (day, scope, name) DO UPDATE SET
          input_tokens = d.input_tokens + excluded.input_tokens,
          output_tokens = d.output_tokens + excluded.output_tokens,
          cached_input_tokens = d.cached_input_tokens + excluded.cached_input_tokens,
          cost_usd = CASE WHEN excluded.cost_usd IS NULL THEN d.cost_usd ELSE coalesce(d.cost_usd, 0) + excluded.cost_usd END`

  return {
    recordUsage: Effect.fn("BrakeStore.recordUsage")(function* (owner: UsageOwner, usage: Usage) {
      const now = yield* Clock.currentTimeMillis
      yield* sql.withTransaction(Effect.gen(function* () {
        const [previous] = yield* attemptTotal(owner.attemptId)
        const delta = increase(usage, previous === undefined ? undefined : usageOf(previous))
        yield* sql`INSERT INTO usine_attempt_usage (attempt_id, run_id, loop, repository, agent, input_tokens,
              output_tokens, cached_input_tokens, cost_usd, updated_at)
            VALUES (${owner.attemptId}, ${owner.runId}, ${owner.loop}, ${owner.repository.toLowerCase()}, ${owner.agent},
              ${usage.inputTokens}, ${usage.outputTokens}, ${usage.cachedInputTokens}, ${usage.costUsd ?? null}, ${now})
            ON CONFLICT (attempt_id) DO UPDATE SET input_tokens = excluded.input_tokens,
              output_tokens = excluded.output_tokens, cached_input_tokens = excluded.cached_input_tokens,
              cost_usd = excluded.cost_usd, updated_at = excluded.updated_at`
        if (isZero(delta)) return
        const day = budgetDayOf(now)
        yield* addToDay(day, "global", "", delta)
        yield* addToDay(day, "loop", owner.loop, delta)
        yield* addToDay(day, "repository", owner.repository.toLowerCase(), delta)
      }))
    }),

    noteUsageDisagreed: Effect.fn("BrakeStore.noteUsageDisagreed")(function* (
      runId: RunId,
      figures: { readonly attempt: number; readonly streamTokens: number; readonly meteredTokens: number }
    ) {
      const now = yield* Clock.currentTimeMillis
      yield* notes.append(runId, "engine", { _tag: "UsageDisagreed", ...figures }, now)
    }),

    runUsage: Effect.fn("BrakeStore.runUsage")(function* (runId: RunId) {
      const rows = yield* ofRun(runId)
      return rows.map((row) => ({ attemptId: AttemptId(row.attempt_id), number: row.number, usage: usageOf(row) }))
    }),

    usageOfDays: Effect.fn("BrakeStore.usageOfDays")(function* (fromDay: string, toDay: string) {
      const rows = yield* ofDays({ from: fromDay, to: toDay })
      return rows.map((row): DayUsage => ({ day: row.day, scope: row.scope, name: row.name, usage: usageOf(row) }))
    }),

    raiseCap: Effect.fn("BrakeStore.raiseCap")(function* (raise: CapRaise) {
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO usine_cap_raises (day, scope, name, tokens, cost_usd, updated_at)
          VALUES (${raise.day}, ${raise.scope}, ${raise.name}, ${raise.tokens}, ${raise.costUsd}, ${now})
          ON CONFLICT (day, scope, name) DO UPDATE SET tokens = excluded.tokens,
            cost_usd = excluded.cost_usd, updated_at = excluded.updated_at`
    }),

    raises: Effect.fn("BrakeStore.raises")(function* (day: string) {
      const rows = yield* raisesOf(day)
      return rows.map((row): CapRaise => ({ day: row.day, scope: row.scope, name: row.name, tokens: row.tokens, costUsd: row.cost_usd }))
    })
  }
}
