import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Effect, Layer } from "effect"
import { ledgerPort } from "./ledgerPort"
import { jsonText } from "./SqlDialect"
import { OPEN_STATES_SQL } from "./SqlRunStore/RunQueries"

/** A count under some labels. */
export interface Figure<L extends string> {
  readonly labels: Readonly<Record<L, string>>
  readonly value: number
}

/** Cumulative bucket counts (`le` in seconds), with the sum and count, as a Prometheus histogram has them. */
export interface Distribution {
  readonly buckets: ReadonlyArray<{ readonly le: number; readonly count: number }>
  readonly sum: number
  readonly count: number
}

/** Tokens and cost an Agent spent for a Loop, over the ledger's whole life. */
export interface Spend {
  readonly loop: string
  readonly agent: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedInputTokens: number
  readonly costUsd: number
}

/**
 * The ledger's figures for `/metrics`, read at scrape time (ADR 0060). Every count over closed facts (Attempts
 * ended, usage recorded) only grows, since the ledger deletes none of them, so they serve as counters across restarts.
 */
export class LedgerFigures extends Context.Tag("usine/LedgerFigures")<
  LedgerFigures,
  {
    /** Runs by Loop and state. */
    readonly runs: Effect.Effect<ReadonlyArray<Figure<"loop" | "state">>>
    /** Ended Attempts by Loop and outcome (`Succeeded`, `Failed`, `Canceled`). */
    readonly attempts: Effect.Effect<ReadonlyArray<Figure<"loop" | "outcome">>>
    /** How long ended Attempts ran, in seconds. */
    readonly attemptSeconds: (buckets: ReadonlyArray<number>) => Effect.Effect<Distribution>
    /** How long Runs waited in Queued before an Attempt started, in seconds. */
    readonly queueWaitSeconds: (buckets: ReadonlyArray<number>) => Effect.Effect<Distribution>
    /** Token and cost totals by Loop and Agent. */
    readonly spend: Effect.Effect<ReadonlyArray<Spend>>
    /** Open Runs held by a brake, by its kind; Agents on a provider-quota hold now. */
    readonly brakes: Effect.Effect<{ readonly held: ReadonlyArray<Figure<"kind">>; readonly agentHolds: number }>
  }
>() {}

const distribution = (sql: SqlClient.SqlClient, buckets: ReadonlyArray<number>, durations: string) =>
  Effect.gen(function* () {
    const columns = buckets.map((le, i) => `coalesce(sum(CASE WHEN d <= ${Number(le)} THEN 1 ELSE 0 END), 0) AS b${i}`)
    const [row] = yield* sql.unsafe<Record<string, number>>(
      `SELECT ${[...columns, "count(*) AS n", "coalesce(sum(d), 0) AS total"].join(", ")} FROM (${durations}) AS durations`
    )
    return {
      buckets: buckets.map((le, i) => ({ le, count: row?.[`b${i}`] ?? 0 })),
      sum: row?.["total"] ?? 0,
      count: row?.["n"] ?? 0
    } satisfies Distribution
  })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return ledgerPort(LedgerFigures, {
    runs: sql<{ loop: string; state: string; n: number }>`SELECT loop, state, count(*) AS n FROM usine_runs GROUP BY loop, state`.pipe(
      Effect.map((rows) => rows.map((r) => ({ labels: { loop: r.loop, state: r.state }, value: r.n })))
    ),
    attempts: sql<{ loop: string; outcome: string; n: number }>`SELECT r.loop, ${jsonText(sql, "a.outcome_json", ["_tag"])} AS outcome,
          count(*) AS n FROM usine_attempts a JOIN usine_runs r ON r.id = a.run_id
          WHERE a.outcome_json IS NOT NULL GROUP BY r.loop, outcome`.pipe(
      Effect.map((rows) => rows.map((r) => ({ labels: { loop: r.loop, outcome: r.outcome }, value: r.n })))
    ),
    attemptSeconds: (buckets) =>
      distribution(sql, buckets, "SELECT (ended_at - started_at) / 1000.0 AS d FROM usine_attempts WHERE ended_at IS NOT NULL"),
    queueWaitSeconds: (buckets) =>
      distribution(
        sql,
        buckets,
        `SELECT d FROM (SELECT to_state, from_state,
            (at - lag(at) OVER (PARTITION BY run_id ORDER BY seq)) / 1000.0 AS d FROM usine_transitions) AS waits
          WHERE from_state = 'Queued' AND to_state = 'Running'`
      ),
    spend: sql<{ loop: string; agent: string; i: number; o: number; c: number; usd: number }>`SELECT loop, agent,
          sum(input_tokens) AS i, sum(output_tokens) AS o, sum(cached_input_tokens) AS c, coalesce(sum(cost_usd), 0) AS usd
          FROM usine_attempt_usage GROUP BY loop, agent`.pipe(
      Effect.map((rows) =>
        rows.map((r) => ({ loop: r.loop, agent: r.agent, inputTokens: r.i, outputTokens: r.o, cachedInputTokens: r.c, costUsd: r.usd }))
      )
    ),
    brakes: Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const held = yield* sql<{ kind: string; n: number }>`SELECT h.kind, count(*) AS n FROM usine_run_holds h
          JOIN usine_runs r ON r.id = h.run_id WHERE r.state IN ${sql.literal(OPEN_STATES_SQL)} GROUP BY h.kind`
      const [agents] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM usine_agent_holds WHERE until > ${now}`
      return { held: held.map((r) => ({ labels: { kind: r.kind }, value: r.n })), agentHolds: agents?.n ?? 0 }
    })
  })
})

export const layer: Layer.Layer<LedgerFigures, never, SqlClient.SqlClient> = Layer.effect(LedgerFigures, make)
