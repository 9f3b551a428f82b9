import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Effect, Layer } from "effect"

/** Where in its life a Run was when its Item's status is written to GitHub. */
export type WriteBackPhase = "running" | "succeeded" | "failed"

/** One write-back to apply: the Run's transition and what the ledger knows of the Run now. */
export interface PendingWriteBack {
  readonly id: number
  readonly runId: string
  readonly phase: WriteBackPhase
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly tries: number
  /** The pull request the Run's newest Attempt recorded, if any. */
  readonly pullRequest: { readonly number: number; readonly url: string } | undefined
}

/** A write-back that failed at least once and is not done: what the Run shows. */
export interface WriteBackTrouble {
  readonly phase: WriteBackPhase
  readonly tries: number
  readonly lastError: string
  readonly done: boolean
}

/**
 * The write-back outbox (ADR 0065): one write per transition that moves an Item's status, recorded in the same
 * transaction that moves the cursor over the transition log, so a restart neither loses nor repeats one; applied
 * until done, and a failure is kept on the Run's row, never on the Run's state.
 */
export class WriteBackOutbox extends Context.Tag("usine/WriteBackOutbox")<
  WriteBackOutbox,
  {
    /** Records the write-backs of the transitions since the last call; the first call on a ledger only places the cursor. */
    readonly advance: Effect.Effect<number>
    /** Write-backs not done whose next try is due, oldest first. */
    readonly due: (now: number, limit: number) => Effect.Effect<ReadonlyArray<PendingWriteBack>>
    readonly done: (id: number, at: number) => Effect.Effect<void>
    /** Records a failed try and when to try again. */
    readonly failed: (id: number, error: string, nextAt: number) => Effect.Effect<void>
    /** The write-backs of a Run that failed at least once, oldest first. */
    readonly troubles: (runId: string) => Effect.Effect<ReadonlyArray<WriteBackTrouble>>
    /** The comment usine keeps on an Item, if it wrote one. */
    readonly commentOf: (repository: string, number: number) => Effect.Effect<number | undefined>
    readonly rememberComment: (repository: string, number: number, commentId: number) => Effect.Effect<void>
  }
>() {}

const PHASES = { Running: "running", Succeeded: "succeeded", Failed: "failed" } as const

interface DueRow {
  readonly id: number
  readonly run_id: string
  readonly phase: WriteBackPhase
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly tries: number
  readonly pull_number: number | null
  readonly pull_url: string | null
}

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const advance = sql.withTransaction(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const top = (yield* sql<{ m: number | null }>`SELECT max(seq) AS m FROM usine_transitions`)[0]?.m ?? 0
      const after = (yield* sql<{ seq: number }>`SELECT seq FROM usine_write_back_cursor WHERE id = 1`)[0]?.seq
      let written = 0
      if (after !== undefined && top > after) {
        const rows = yield* sql<{ seq: number; run_id: string; to_state: keyof typeof PHASES }>`SELECT t.seq, t.run_id, t.to_state
            FROM usine_transitions t JOIN usine_runs r ON r.id = t.run_id
            WHERE t.seq > ${after} AND t.seq <= ${top} AND r.number IS NOT NULL
              AND t.to_state IN ('Running', 'Succeeded', 'Failed') ORDER BY t.seq`
        for (const row of rows) {
          yield* sql`INSERT INTO usine_write_backs (run_id, transition_seq, phase, created_at, next_at)
              VALUES (${row.run_id}, ${row.seq}, ${PHASES[row.to_state]}, ${now}, ${now})
              ON CONFLICT (transition_seq) DO NOTHING`
          written++
        }
      }
      if (after === undefined || top > after) {
        yield* sql`INSERT INTO usine_write_back_cursor (id, seq) VALUES (1, ${top})
            ON CONFLICT (id) DO UPDATE SET seq = excluded.seq`
      }
      return written
    })
  ).pipe(Effect.orDie)

  const due = (now: number, limit: number) =>
    sql<DueRow>`SELECT w.id, w.run_id, w.phase, w.tries, r.loop, r.repository, r.number,
          json_extract(a.outcome_json, '$.result.pullRequestNumber') AS pull_number,
          json_extract(a.outcome_json, '$.result.pullRequestUrl') AS pull_url
        FROM usine_write_backs w JOIN usine_runs r ON r.id = w.run_id
        LEFT JOIN usine_attempts a ON a.id = (SELECT id FROM usine_attempts
          WHERE run_id = r.id AND json_extract(outcome_json, '$.result.pullRequestUrl') IS NOT NULL
          ORDER BY number DESC LIMIT 1)
        WHERE w.done_at IS NULL AND w.next_at <= ${now}
          -- a Run's writes go in order: none while an earlier one of the same Run waits
          AND NOT EXISTS (SELECT 1 FROM usine_write_backs e WHERE e.run_id = w.run_id AND e.id < w.id AND e.done_at IS NULL)
        ORDER BY w.id LIMIT ${limit}`.pipe(
      Effect.map((rows) =>
        rows.map((r): PendingWriteBack => ({
          id: r.id,
          runId: r.run_id,
          phase: r.phase,
          loop: r.loop,
          repository: r.repository,
          number: r.number,
          tries: r.tries,
          pullRequest: r.pull_number === null || r.pull_url === null ? undefined : { number: r.pull_number, url: r.pull_url }
        }))
      ),
      Effect.orDie
    )

  return WriteBackOutbox.of({
    advance,
    due,
    done: (id, at) => Effect.orDie(Effect.asVoid(sql`UPDATE usine_write_backs SET done_at = ${at} WHERE id = ${id}`)),
    failed: (id, error, nextAt) =>
      Effect.orDie(Effect.asVoid(sql`UPDATE usine_write_backs SET tries = tries + 1, last_error = ${error.slice(0, 500)},
          next_at = ${nextAt} WHERE id = ${id}`)),
    troubles: (runId) =>
      sql<{ phase: WriteBackPhase; tries: number; last_error: string; done_at: number | null }>`SELECT phase, tries,
          last_error, done_at FROM usine_write_backs WHERE run_id = ${runId} AND tries > 0 ORDER BY id`.pipe(
        Effect.map((rows) => rows.map((r) => ({ phase: r.phase, tries: r.tries, lastError: r.last_error, done: r.done_at !== null }))),
        Effect.orDie
      ),
    commentOf: (repository, number) =>
      sql<{ comment_id: number }>`SELECT comment_id FROM usine_item_comments
          WHERE repository = ${repository} AND number = ${number}`.pipe(Effect.map((rows) => rows[0]?.comment_id), Effect.orDie),
    rememberComment: (repository, number, commentId) =>
      Effect.orDie(Effect.asVoid(sql`INSERT INTO usine_item_comments (repository, number, comment_id)
          VALUES (${repository}, ${number}, ${commentId})
          ON CONFLICT (repository, number) DO UPDATE SET comment_id = excluded.comment_id`))
  })
})

export const layer: Layer.Layer<WriteBackOutbox, never, SqlClient.SqlClient> = Layer.effect(WriteBackOutbox, make)
