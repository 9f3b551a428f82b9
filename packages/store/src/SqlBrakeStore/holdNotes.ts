import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { budgetDayOf } from "@usine/core/config/BudgetConfig"
import type { RunId } from "@usine/core/ids/RunId"
import type { HoldKind } from "@usine/core/brakes/HoldKind"
import type { RunHold } from "../BrakeStore"
import { makeNoteQueries } from "../RunNote/noteQueries"
import { type ReleaseFacts, releaseWhy } from "../RunNote/releaseWhy"

/** The hold a release ended, as its row held it. */
interface EndedHold {
  readonly kind: HoldKind
  readonly reason: string
  readonly until: number | undefined
  readonly since: number
}

/**
 * The Run notes the brakes write, inside the transaction of the hold change they explain: one when a hold begins or
 * its reason changes (not one per re-check), one when it ends (ADR 0049).
 */
export const makeHoldNotes = (sql: SqlClient.SqlClient) => {
  const notes = makeNoteQueries(sql)

  const runFacts = (runId: RunId) =>
    sql<{ state: string; loop: string; item_key: string; agent: string; last_reason: string | null }>`
      SELECT r.state, r.loop, r.item_key, r.agent,
        (SELECT t.reason FROM usine_transitions t WHERE t.run_id = r.id ORDER BY t.seq DESC LIMIT 1) AS last_reason
      FROM usine_runs r WHERE r.id = ${runId}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

  const quotaUntil = (agent: string) =>
    sql<{ until: number | null }>`SELECT max(until) AS until FROM usine_agent_holds WHERE agent = ${agent}`.pipe(
      Effect.map((rows) => rows[0]?.until ?? undefined)
    )

  const raisedCaps = (loop: string, since: number, now: number) =>
    sql<{ scope: string; name: string }>`SELECT scope, name FROM usine_cap_raises
        WHERE day = ${budgetDayOf(now)} AND updated_at >= ${since} AND (scope = 'global' OR (scope = 'loop' AND name = ${loop}))
        ORDER BY scope DESC`.pipe(
      Effect.map((rows) => rows.map((row) => (row.scope === "global" ? "the daemon" : `loop ${row.name}`)))
    )

  const closedPullRequests = (loop: string, since: number) =>
    sql<{ repository: string; number: number }>`SELECT repository, number FROM usine_loop_pull_requests
        WHERE loop = ${loop} AND closed_at >= ${since} ORDER BY closed_at, repository, number`.pipe(
      Effect.map((rows) => rows.map((row) => `${row.repository}#${row.number}`))
    )

  const stillParked = (loop: string, itemKey: string) =>
    sql<{ parked_at: number | null }>`SELECT parked_at FROM usine_item_progress
        WHERE loop = ${loop} AND item_key = ${itemKey}`.pipe(Effect.map((rows) => (rows[0]?.parked_at ?? null) !== null))

  return {
    /** Notes the hold unless `previous`, the Run's hold before this write, had the same kind and reason. */
    held: (previous: Option.Option<{ readonly kind: HoldKind; readonly reason: string }>, hold: RunHold) =>
      Option.isSome(previous) && previous.value.kind === hold.kind && previous.value.reason === hold.reason
        ? Effect.void
        : notes.append(hold.runId, "engine", {
          _tag: "Held",
          holdKind: hold.kind,
          reason: hold.reason,
          ...(hold.until === undefined ? {} : { until: hold.until })
        }, hold.since),

    /** Notes the end of `ended`: how long the Run waited since its first hold, and why it no longer does. */
    released: (runId: RunId, ended: EndedHold, now: number) =>
      Effect.gen(function* () {
        const run = yield* runFacts(runId)
        if (Option.isNone(run)) return
        const { agent, item_key, last_reason, loop, state } = run.value
        const facts: ReleaseFacts = {
          now,
          kind: ended.kind,
          until: ended.until,
          state,
          lastReason: last_reason ?? undefined,
          quotaUntil: ended.kind === "AgentQuota" ? yield* quotaUntil(agent) : undefined,
          raisedCaps: ended.kind === "DailyCap" ? yield* raisedCaps(loop, ended.since, now) : [],
          closedPullRequests: ended.kind === "OpenPullRequests" ? yield* closedPullRequests(loop, ended.since) : [],
          stillParked: ended.kind === "NoProgress" ? yield* stillParked(loop, item_key) : true
        }
        const first = Option.getOrElse(yield* notes.heldSince(runId), () => ended.since)
        yield* notes.append(runId, "engine", {
          _tag: "Released",
          holdKind: ended.kind,
          reason: ended.reason,
          heldMs: Math.max(0, now - Math.min(first, ended.since)),
          why: releaseWhy(facts)
        }, now)
      })
  }
}
