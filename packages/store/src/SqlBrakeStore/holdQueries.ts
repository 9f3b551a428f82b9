import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Effect, Option, Schema } from "effect"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { AgentHold, HeldRun, RunHold } from "../BrakeStore"
import { makeHoldNotes } from "./holdNotes"
import { OPEN_STATES_SQL } from "../SqlRunStore/RunQueries"
import { findAllByKey, findOneByKey } from "../findByKey"
import { itemKeyOfColumns, jsonText } from "../SqlDialect"

const HoldColumns = {
  run_id: Schema.String,
  kind: Schema.Literal("AgentQuota", "DailyCap", "NoProgress", "OpenPullRequests", "RetryBackoff"),
  reason: Schema.String,
  until: Schema.NullOr(Schema.Number),
  since: Schema.Number
}

const holdOf = (row: Schema.Struct.Type<typeof HoldColumns>): RunHold => ({
  runId: RunId(row.run_id),
  kind: row.kind,
  reason: row.reason,
  until: row.until ?? undefined,
  since: row.since
})

/** Agent quota holds, Run holds (with their notes) and the pull requests each Loop opened; SQL failures are defects. */
export const makeHoldQueries = (sql: SqlClient.SqlClient) => {
  const agentRows = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Schema.Struct({ agent: Schema.String, until: Schema.Number, reason: Schema.String, attempt_id: Schema.String, at: Schema.Number }),
    execute: (now) => sql`SELECT * FROM usine_agent_holds WHERE until > ${now} ORDER BY until, agent`
  })
  const holdRow = findOneByKey(Schema.Struct(HoldColumns), (runId) =>
    sql`SELECT h.* FROM usine_run_holds h JOIN usine_runs r ON r.id = h.run_id
        WHERE h.run_id = ${runId} AND r.state IN ${sql.literal(OPEN_STATES_SQL)}`
  )
  const currentHold = findOneByKey(Schema.Struct(HoldColumns), (runId) =>
    sql`SELECT * FROM usine_run_holds WHERE run_id = ${runId}`
  )
  const deleteHold = findAllByKey(Schema.Struct(HoldColumns), (runId) =>
    sql`DELETE FROM usine_run_holds WHERE run_id = ${runId} RETURNING *`
  )
  const notes = makeHoldNotes(sql)
  const heldRows = SqlSchema.findAll({
    Request: Schema.Number,
    Result: Schema.Struct({
      ...HoldColumns,
      loop: Schema.String,
      item_key: Schema.String,
      repository: Schema.String,
      number: Schema.NullOr(Schema.Number),
      agent: Schema.String,
      state: Schema.String
    }),
    execute: (limit) =>
      sql`SELECT h.*, r.loop, r.item_key, r.repository, r.number, r.agent, r.state
          FROM usine_run_holds h JOIN usine_runs r ON r.id = h.run_id
          WHERE r.state IN ${sql.literal(OPEN_STATES_SQL)} ORDER BY h.since, h.run_id LIMIT ${limit}`
  })
  const openPulls = findAllByKey(Schema.Struct({ repository: Schema.String, number: Schema.Number }), (loop) =>
    sql`SELECT repository, number FROM usine_loop_pull_requests
        WHERE loop = ${loop} AND closed_at IS NULL ORDER BY recorded_at, repository, number`
  )

  return {
    holdAgent: Effect.fn("BrakeStore.holdAgent")(function* (hold: AgentHold) {
      yield* sql`INSERT INTO usine_agent_holds (agent, until, reason, attempt_id, at)
          VALUES (${hold.agent}, ${hold.until}, ${hold.reason}, ${hold.attemptId}, ${hold.at})
          ON CONFLICT (agent) DO UPDATE SET until = excluded.until, reason = excluded.reason,
            attempt_id = excluded.attempt_id, at = excluded.at
          WHERE excluded.until > usine_agent_holds.until`
    }),

    agentHolds: Effect.fn("BrakeStore.agentHolds")(function* (now: number) {
      const rows = yield* agentRows(now)
      return rows.map((row): AgentHold => ({
        agent: row.agent,
        until: row.until,
        reason: row.reason,
        attemptId: AttemptId(row.attempt_id),
        at: row.at
      }))
    }),

    recordPullRequest: Effect.fn("BrakeStore.recordPullRequest")(function* (
      loop: string,
      repository: string,
      number: number,
      runId: RunId
    ) {
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO usine_loop_pull_requests (loop, repository, number, run_id, recorded_at)
          VALUES (${loop}, ${repository.toLowerCase()}, ${number}, ${runId}, ${now}) ON CONFLICT DO NOTHING`
    }),

    // A pull request seen merged or closed leaves the set for good, so the check stays small as a Loop ages.
    openPullRequests: Effect.fn("BrakeStore.openPullRequests")(function* (loop: string) {
      const now = yield* Clock.currentTimeMillis
      yield* sql`UPDATE usine_loop_pull_requests SET closed_at = ${now}
          WHERE loop = ${loop} AND closed_at IS NULL AND EXISTS (
            SELECT 1 FROM usine_item_projections p
            WHERE p.item_key = ${itemKeyOfColumns(sql, "usine_loop_pull_requests.repository", "usine_loop_pull_requests.number")}
              AND upper(coalesce(${jsonText(sql, "p.payload_json", ["state"])}, 'OPEN')) <> 'OPEN')`
      return yield* openPulls(loop)
    }),

    // One transaction per change: the hold row and the note that explains it commit together (ADR 0049).
    holdRun: Effect.fn("BrakeStore.holdRun")(function* (hold: RunHold) {
      yield* sql.withTransaction(Effect.gen(function* () {
        const previous = yield* currentHold(hold.runId)
        yield* sql`INSERT INTO usine_run_holds (run_id, kind, reason, until, since)
            VALUES (${hold.runId}, ${hold.kind}, ${hold.reason}, ${hold.until ?? null}, ${hold.since})
            ON CONFLICT (run_id) DO UPDATE SET reason = excluded.reason, until = excluded.until,
              since = CASE WHEN usine_run_holds.kind = excluded.kind THEN usine_run_holds.since ELSE excluded.since END,
              kind = excluded.kind`
        yield* notes.held(previous, hold)
      }))
    }),

    // Called at every admission: a read first, so a Run that was never held costs no write transaction.
    releaseRun: Effect.fn("BrakeStore.releaseRun")(function* (runId: RunId) {
      if (Option.isNone(yield* currentHold(runId))) return
      const now = yield* Clock.currentTimeMillis
      yield* sql.withTransaction(Effect.gen(function* () {
        const [ended] = yield* deleteHold(runId)
        if (ended !== undefined) yield* notes.released(runId, { ...ended, until: ended.until ?? undefined }, now)
      }))
    }),

    runHold: Effect.fn("BrakeStore.runHold")(function* (runId: RunId) {
      return Option.map(yield* holdRow(runId), holdOf)
    }),

    changeMark: sql<Record<string, number | null>>`SELECT
        (SELECT count(*) FROM usine_run_holds) AS holds,
        (SELECT max(since) FROM usine_run_holds) AS held,
        (SELECT coalesce(sum(length(reason)), 0) FROM usine_run_holds) AS reasons,
        (SELECT max(updated_at) FROM usine_item_progress) AS progress,
        (SELECT max(at) FROM usine_agent_holds) AS agents,
        (SELECT max(updated_at) FROM usine_cap_raises) AS raises`.pipe(
      Effect.map((rows) => Object.values(rows[0] ?? {}).map((value) => value ?? 0).join(":")),
      Effect.withSpan("BrakeStore.changeMark")
    ),

    heldRuns: Effect.fn("BrakeStore.heldRuns")(function* (limit: number) {
      const rows = yield* heldRows(limit)
      return rows.map((row): HeldRun => ({
        ...holdOf(row),
        loop: row.loop,
        itemKey: ItemKey(row.item_key),
        repository: row.repository,
        number: row.number ?? undefined,
        agent: row.agent,
        state: row.state
      }))
    })
  }
}
