import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { OPEN_TAGS, UNSTARTED_TAGS } from "@usine/core/run/state"
import { Transition } from "@usine/core/run/Transition"
import { RunFromRow, rowOfRun } from "./RunRow"
import { findAllByKey, findOneByKey } from "../findByKey"

/** A SQL list of state tags, from core's own lists: one place says which states are open (issue 35). */
const sqlList = (tags: ReadonlyArray<string>) => `(${tags.map((tag) => `'${tag}'`).join(", ")})`

export const OPEN_STATES_SQL = sqlList(OPEN_TAGS)
const UNSTARTED_STATES_SQL = sqlList(UNSTARTED_TAGS)

const TransitionFromRow = Schema.transform(
  Schema.Struct({
    seq: Schema.Number,
    run_id: Schema.String,
    from_state: Schema.NullOr(Schema.String),
    to_state: Schema.String,
    actor: Schema.String,
    login: Schema.NullOr(Schema.String),
    reason: Schema.String,
    at: Schema.Number
  }),
  Transition,
  {
    strict: false,
    decode: (row) => ({
      seq: row.seq,
      runId: row.run_id,
      ...(row.from_state === null ? {} : { from: row.from_state }),
      to: row.to_state,
      actor: row.actor,
      ...(row.login === null ? {} : { login: row.login }),
      reason: row.reason,
      at: row.at
    }),
    encode: (t) => ({ ...t, run_id: t.runId, from_state: t.from ?? null, to_state: t.to, login: t.login ?? null })
  }
)

type TransitionInput = Omit<Transition, "seq">

const LoopItem = Schema.Struct({ loop: Schema.String, itemKey: Schema.String })

/**
 * Reads and writes of `usine_runs`, `usine_transitions` and `usine_approvals`; SQL failures are defects. `written` is
 * told the Event of every Run row written, before the write.
 */
export const makeRunQueries = (sql: SqlClient.SqlClient, written: (eventId: string) => void = () => {}) => {
  const byId = findOneByKey(RunFromRow, (id) => sql`SELECT * FROM usine_runs WHERE id = ${id}`)
  const byEvent = findOneByKey(RunFromRow, (eventId) => sql`SELECT * FROM usine_runs WHERE event_id = ${eventId}`)
  /** The Runs of a Loop on an Item whose state is in `states` (a SQL list). */
  const ofLoopItemIn = (states: string) => ({ itemKey, loop }: typeof LoopItem.Encoded) =>
    sql`SELECT * FROM usine_runs WHERE loop = ${loop} AND item_key = ${itemKey} AND state IN ${sql.literal(states)}`
  const openOf = SqlSchema.findOne({ Request: LoopItem, Result: RunFromRow, execute: ofLoopItemIn(OPEN_STATES_SQL) })
  const open = SqlSchema.findAll({
    Request: Schema.Void,
    Result: RunFromRow,
    execute: () =>
      sql`SELECT * FROM usine_runs WHERE state IN ${sql.literal(OPEN_STATES_SQL)} ORDER BY received_at, id`
  })
  const unstartedOf = SqlSchema.findAll({ Request: LoopItem, Result: RunFromRow, execute: ofLoopItemIn(UNSTARTED_STATES_SQL) })
  const unstartedOnItem = findAllByKey(RunFromRow, (itemKey) =>
    sql`SELECT * FROM usine_runs WHERE item_key = ${itemKey} AND state IN ${sql.literal(UNSTARTED_STATES_SQL)}`
  )
  const awaitingApproval = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ id: Schema.String, loop: Schema.String, since: Schema.Number }),
    execute: () =>
      sql`SELECT r.id, r.loop, coalesce((SELECT max(t.at) FROM usine_transitions t
            WHERE t.run_id = r.id AND t.to_state = r.state), r.updated_at) AS since
          FROM usine_runs r WHERE r.state IN ('Waiting', 'Reviewing') ORDER BY since, r.id`
  })
  const transitionsOf = findAllByKey(TransitionFromRow, (runId) =>
    sql`SELECT * FROM usine_transitions WHERE run_id = ${runId} ORDER BY seq`
  )

  return {
    byId: (id: RunId) => byId(id),
    byEvent: (eventId: string) => byEvent(eventId),
    /** The open Run of a Loop and Item; the unique index allows at most one. */
    openOf: (loop: string, itemKey: ItemKey) => openOf({ loop, itemKey }),
    open: open(undefined),
    unstartedOf: (loop: string, itemKey: ItemKey) => unstartedOf({ loop, itemKey }),
    unstartedOnItem: (itemKey: ItemKey) => unstartedOnItem(itemKey),
    transitionsOf: (runId: RunId) => transitionsOf(runId),
    /** Waiting and Reviewing Runs with the time they began waiting there, oldest first. */
    awaitingApproval: Effect.map(
      awaitingApproval(undefined),
      (rows) => rows.map((row) => ({ runId: RunId(row.id), loop: row.loop, since: row.since }))
    ),

    // The store's own Runs, valid by construction: encoded without a Schema pass (`rowOfRun`).
    insert: (run: Run) =>
      Effect.suspend(() => {
        written(run.eventId)
        return sql`INSERT INTO usine_runs ${sql.insert(rowOfRun(run))}`
      }),

    /** Writes `run` over the row only if the row still has `expectedVersion`; false when it does not. */
    updateIfVersion: (run: Run, expectedVersion: number) =>
      Effect.suspend(() => {
        written(run.eventId)
        return sql`UPDATE usine_runs SET ${sql.update(rowOfRun(run), ["id", "event_id"])}
          WHERE id = ${run.id} AND version = ${expectedVersion} RETURNING id`
      }).pipe(
        Effect.map((rows) => rows.length === 1)
      ),

    versionOf: (runId: RunId) =>
      sql<{ version: number }>`SELECT version FROM usine_runs WHERE id = ${runId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.version))
      ),

    insertTransition: (t: TransitionInput) =>
      sql`INSERT INTO usine_transitions (run_id, from_state, to_state, actor, login, reason, at)
          VALUES (${t.runId}, ${t.from ?? null}, ${t.to}, ${t.actor}, ${t.login ?? null}, ${t.reason}, ${t.at})`,

    insertApproval: (eventId: string, runId: RunId, at: number) =>
      sql`INSERT INTO usine_approvals (event_id, run_id, approved_at) VALUES (${eventId}, ${runId}, ${at})`,

    hasApproval: (runId: RunId) =>
      sql`SELECT 1 FROM usine_approvals WHERE run_id = ${runId}`.pipe(
        Effect.map((rows) => rows.length > 0)
      ),

    /** Runs of a Loop holding a reservation in a generation: all but those canceled before any Attempt. */
    reservedCount: (loop: string, itemKey: ItemKey, generation: number) =>
      sql<{ n: number }>`SELECT count(*) AS n FROM usine_runs r
          WHERE r.loop = ${loop} AND r.item_key = ${itemKey} AND r.generation = ${generation}
          AND (r.state <> 'Canceled' OR EXISTS (SELECT 1 FROM usine_attempts a WHERE a.run_id = r.id))`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0)
      )
  }
}

export type RunQueries = ReturnType<typeof makeRunQueries>
