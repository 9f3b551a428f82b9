import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Effect, Layer } from "effect"
import { ledgerPort } from "./ledgerPort"
import { jsonText } from "./SqlDialect"

/** Where in its life a Run was when its Item's status is written to GitHub. */
export type WriteBackPhase = "running" | "succeeded" | "failed" | "canceled"

/** One write-back to apply: the Run's transition and what the ledger knows of the Run now. */
export interface PendingWriteBack {
  readonly id: number
  readonly runId: string
  readonly phase: WriteBackPhase
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly tries: number
  /** When the trigger saw the change that opened the Run, epoch ms: the labels that triggered it went on before. */
  readonly receivedAt: number
  /** The pull request the Run's newest Attempt recorded, if any. */
  readonly pullRequest: { readonly number: number; readonly url: string } | undefined
  /** The Run's newest approval (at the start or at the pull-request gate) as its audit row tells it; none if never approved. */
  readonly approval: { readonly actor: string; readonly reason: string } | undefined
  /** Why a canceled Run was canceled (`OperatorCanceled`, `ApprovalTimedOut`); absent for other phases. */
  readonly cancelReason: string | undefined
}

/** A write-back of a Run that failed at least once or skipped something: what the Run shows. */
export interface WriteBackTrouble {
  readonly phase: WriteBackPhase
  readonly tries: number
  /** The last failure's message; absent when no try failed. */
  readonly lastError?: string | undefined
  /** What the write skipped, one line each (a reviewer nobody could name). */
  readonly notes: ReadonlyArray<string>
  /** `retrying`: not done, tried again later; `recovered`: done after a failure; `gave-up`: failed every try; `done`. */
  readonly status: "retrying" | "recovered" | "gave-up" | "done"
}

/**
 * The write-back outbox (ADR 0065): one write per transition that moves an Item's status, recorded in the same
 * transaction that moves the cursor over the transition log, so a restart neither loses nor repeats one; applied
 * until done or given up, and a failure is kept on the Run's row, never on the Run's state.
 */
export class WriteBackOutbox extends Context.Tag("usine/WriteBackOutbox")<
  WriteBackOutbox,
  {
    /** Records the write-backs of the transitions since the last call; the first call on a ledger only places the cursor. */
    readonly advance: Effect.Effect<number>
    /** Write-backs not done whose next try is due, oldest first. */
    readonly due: (now: number, limit: number) => Effect.Effect<ReadonlyArray<PendingWriteBack>>
    /** The write-back is applied; `notes` says what it skipped. */
    readonly done: (id: number, at: number, notes?: ReadonlyArray<string>) => Effect.Effect<void>
    /** Records a failed try at `at`, and when to try again; without `retryAt` the write-back is given up. */
    readonly failed: (id: number, error: string, at: number, retryAt: number | undefined) => Effect.Effect<void>
    /** The write-backs of a Run that failed at least once or skipped something, oldest first. */
    readonly troubles: (runId: string) => Effect.Effect<ReadonlyArray<WriteBackTrouble>>
    /** The comment usine keeps on an Item, if it wrote one. */
    readonly commentOf: (repository: string, number: number) => Effect.Effect<number | undefined>
    readonly rememberComment: (repository: string, number: number, commentId: number) => Effect.Effect<void>
  }
>() {}

const PHASES = { Running: "running", Succeeded: "succeeded", Failed: "failed", Canceled: "canceled" } as const

interface DueRow {
  readonly id: number
  readonly run_id: string
  readonly phase: WriteBackPhase
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly tries: number
  readonly received_at: number
  readonly pull_number: number | null
  readonly pull_url: string | null
  readonly approval_actor: string | null
  readonly approval_reason: string | null
  readonly cancel_reason: string | null
}

interface TroubleRow {
  readonly phase: WriteBackPhase
  readonly tries: number
  readonly last_error: string | null
  readonly notes_json: string | null
  readonly done_at: number | null
  readonly gave_up_at: number | null
}

const troubleOf = (r: TroubleRow): WriteBackTrouble => ({
  phase: r.phase,
  tries: r.tries,
  ...(r.last_error === null ? {} : { lastError: r.last_error }),
  notes: r.notes_json === null ? [] : (JSON.parse(r.notes_json) as ReadonlyArray<string>),
  status: r.gave_up_at !== null ? "gave-up" : r.done_at === null ? "retrying" : r.tries > 0 ? "recovered" : "done"
})

const make = Effect.gen(function* () {
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
              AND t.to_state IN ('Running', 'Succeeded', 'Failed', 'Canceled')
              -- a Run canceled before it ran moved nothing on GitHub: there is nothing to undo
              AND (t.to_state != 'Canceled' OR EXISTS (SELECT 1 FROM usine_transitions p
                WHERE p.run_id = t.run_id AND p.seq < t.seq AND p.to_state = 'Running'))
            ORDER BY t.seq`
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
  )

  const due = (now: number, limit: number) =>
    sql<DueRow>`SELECT w.id, w.run_id, w.phase, w.tries, r.loop, r.repository, r.number, r.received_at,
          CAST(${jsonText(sql, "a.outcome_json", ["result", "pullRequestNumber"])} AS BIGINT) AS pull_number,
          ${jsonText(sql, "a.outcome_json", ["result", "pullRequestUrl"])} AS pull_url,
          ap.actor AS approval_actor, ap.reason AS approval_reason,
          CASE WHEN w.phase = 'canceled' THEN ${jsonText(sql, "r.state_json", ["reason", "_tag"])} END AS cancel_reason
        FROM usine_write_backs w JOIN usine_runs r ON r.id = w.run_id
        LEFT JOIN usine_transitions ap ON ap.seq = (SELECT seq FROM usine_transitions
          WHERE run_id = r.id AND actor = 'operator'
            AND ((from_state = 'Waiting' AND to_state = 'Queued') OR (from_state = 'Reviewing' AND to_state = 'Running'))
          ORDER BY seq DESC LIMIT 1)
        LEFT JOIN usine_attempts a ON a.id = (SELECT id FROM usine_attempts
          WHERE run_id = r.id AND ${jsonText(sql, "outcome_json", ["result", "pullRequestUrl"])} IS NOT NULL
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
          receivedAt: r.received_at,
          pullRequest: r.pull_number === null || r.pull_url === null ? undefined : { number: r.pull_number, url: r.pull_url },
          approval: r.approval_actor === null ? undefined : { actor: r.approval_actor, reason: r.approval_reason ?? "" },
          cancelReason: r.cancel_reason ?? undefined
        }))
      )
    )

  return ledgerPort(WriteBackOutbox, {
    advance,
    due,
    done: (id, at, notes = []) =>
      Effect.asVoid(sql`UPDATE usine_write_backs SET done_at = ${at},
          notes_json = ${notes.length === 0 ? null : JSON.stringify(notes)} WHERE id = ${id}`),
    failed: (id, error, at, retryAt) =>
      Effect.asVoid(sql`UPDATE usine_write_backs SET tries = tries + 1, last_error = ${error.slice(0, 500)},
          next_at = ${retryAt ?? at}, done_at = ${retryAt === undefined ? at : null},
          gave_up_at = ${retryAt === undefined ? at : null} WHERE id = ${id}`),
    troubles: (runId) =>
      sql<TroubleRow>`SELECT phase, tries, last_error, notes_json, done_at, gave_up_at FROM usine_write_backs
          WHERE run_id = ${runId} AND (tries > 0 OR notes_json IS NOT NULL) ORDER BY id`.pipe(
        Effect.map((rows) => rows.map(troubleOf))
      ),
    commentOf: (repository, number) =>
      sql<{ comment_id: number }>`SELECT comment_id FROM usine_item_comments
          WHERE repository = ${repository} AND number = ${number}`.pipe(Effect.map((rows) => rows[0]?.comment_id)),
    rememberComment: (repository, number, commentId) =>
      Effect.asVoid(sql`INSERT INTO usine_item_comments (repository, number, comment_id)
          VALUES (${repository}, ${number}, ${commentId})
          ON CONFLICT (repository, number) DO UPDATE SET comment_id = excluded.comment_id`)
  })
})

export const layer: Layer.Layer<WriteBackOutbox, never, SqlClient.SqlClient> = Layer.effect(WriteBackOutbox, make)
