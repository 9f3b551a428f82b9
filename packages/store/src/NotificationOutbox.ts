import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Context, Effect, Layer } from "effect"
import { ledgerPort } from "./ledgerPort"
import { jsonText } from "./SqlDialect"

/** A fact of the ledger a notification may be about. */
export interface NotifiableFact {
  readonly event: "approval_needed" | "failed" | "parked" | "pull_request_opened" | "cap_reached"
  readonly runId: string
  readonly loop: string
  readonly repository: string
  readonly number: number | undefined
  readonly at: number
  /** The transition's or hold's reason; the pull request's URL for `pull_request_opened`. */
  readonly detail: string
}

/** One notification to write: its endpoint, event and subject name it once and for all. */
export interface NewNotification {
  readonly endpoint: string
  readonly event: string
  readonly subject: string
  readonly body: unknown
}

export interface PendingNotification {
  readonly id: number
  readonly endpoint: string
  readonly event: string
  readonly body: unknown
  readonly tries: number
}

/** An endpoint whose oldest undelivered notification has failed `tries` times. */
interface FailingEndpoint {
  readonly endpoint: string
  readonly tries: number
  readonly lastError: string
  readonly since: number
}

/**
 * The notification outbox (ADR 0061). Notifications are written once per endpoint, event and subject, in the same
 * transaction that moves the cursors over the logs they come from, so a restart neither loses nor repeats one; they
 * are sent until delivered.
 */
export class NotificationOutbox extends Context.Tag("usine/NotificationOutbox")<
  NotificationOutbox,
  {
    /**
     * Reads the transitions and Run notes written since the last call and writes the notifications `render` makes of
     * them; the first call on a ledger only places the cursors, so history is never announced.
     */
    readonly advance: (render: (fact: NotifiableFact) => ReadonlyArray<NewNotification>) => Effect.Effect<number>
    /** Writes one notification unless the same endpoint, event and subject has one. */
    readonly enqueue: (notification: NewNotification) => Effect.Effect<void>
    /** Undelivered notifications whose next try is due, oldest first. */
    readonly due: (now: number, limit: number) => Effect.Effect<ReadonlyArray<PendingNotification>>
    readonly delivered: (id: number, at: number) => Effect.Effect<void>
    /** Records a failed try and when to try again. */
    readonly failed: (id: number, error: string, nextAt: number) => Effect.Effect<void>
    /** Endpoints with an undelivered notification that failed at least `minTries` times. */
    readonly failing: (minTries: number) => Effect.Effect<ReadonlyArray<FailingEndpoint>>
  }
>() {}

interface FactRow {
  readonly seq: number
  readonly run_id: string
  readonly kind: string
  readonly detail: string | null
  readonly at: number
  readonly loop: string
  readonly repository: string
  readonly number: number | null
}

const factOf = (row: FactRow): ReadonlyArray<NotifiableFact> => {
  const events: Readonly<Record<string, NotifiableFact["event"]>> = {
    Waiting: "approval_needed",
    // The pull-request gate asks for the operator too (once per Run: a Run gated at the start was announced then).
    Reviewing: "approval_needed",
    Failed: "failed",
    Succeeded: "pull_request_opened",
    NoProgress: "parked",
    DailyCap: "cap_reached"
  }
  const event = Object.hasOwn(events, row.kind) ? events[row.kind] : undefined
  if (event === undefined || (event === "pull_request_opened" && row.detail === null)) return []
  const base = { runId: row.run_id, loop: row.loop, repository: row.repository, number: row.number ?? undefined, at: row.at }
  // Waiting's reason is always "approval required": the headline says it already.
  return [{ ...base, event, detail: row.kind === "Waiting" ? "" : row.detail ?? "" }]
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const cursorOf = (log: string) =>
    Effect.map(sql<{ seq: number }>`SELECT seq FROM usine_notify_cursors WHERE log = ${log}`, (rows) => rows[0]?.seq)
  const setCursor = (log: string, seq: number) =>
    sql`INSERT INTO usine_notify_cursors (log, seq) VALUES (${log}, ${seq})
        ON CONFLICT (log) DO UPDATE SET seq = excluded.seq`
  const insert = (n: NewNotification, now: number) =>
    sql`INSERT INTO usine_notifications (endpoint, event, subject, body_json, created_at, next_at)
        VALUES (${n.endpoint}, ${n.event}, ${n.subject}, ${JSON.stringify(n.body)}, ${now}, ${now})
        ON CONFLICT (endpoint, event, subject) DO NOTHING`

  const transitions = (after: number, upTo: number) =>
    sql<FactRow>`SELECT t.seq, t.run_id, t.to_state AS kind, t.at, r.loop, r.repository, r.number,
          CASE t.to_state WHEN 'Succeeded' THEN (SELECT ${jsonText(sql, "a.outcome_json", ["result", "pullRequestUrl"])}
            FROM usine_attempts a WHERE a.run_id = r.id AND a.outcome_json IS NOT NULL ORDER BY a.number DESC LIMIT 1)
          ELSE t.reason END AS detail
        FROM usine_transitions t JOIN usine_runs r ON r.id = t.run_id
        WHERE t.seq > ${after} AND t.seq <= ${upTo} AND t.to_state IN ('Waiting', 'Reviewing', 'Failed', 'Succeeded') ORDER BY t.seq`
  const holds = (after: number, upTo: number) =>
    sql<FactRow>`SELECT n.id AS seq, n.run_id, ${jsonText(sql, "n.body_json", ["holdKind"])} AS kind, n.summary AS detail, n.at,
          r.loop, r.repository, r.number
        FROM usine_run_notes n JOIN usine_runs r ON r.id = n.run_id
        WHERE n.id > ${after} AND n.id <= ${upTo} AND n.kind = 'Held' ORDER BY n.id`

  const logs = [
    { log: "transitions", top: sql<{ m: number | null }>`SELECT max(seq) AS m FROM usine_transitions`, read: transitions },
    { log: "run_notes", top: sql<{ m: number | null }>`SELECT max(id) AS m FROM usine_run_notes`, read: holds }
  ] as const

  return ledgerPort(NotificationOutbox, {
    advance: (render) =>
      sql.withTransaction(Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        let written = 0
        for (const { log, read, top } of logs) {
          const upTo = (yield* top)[0]?.m ?? 0
          const after = yield* cursorOf(log)
          if (after !== undefined && upTo > after) {
            for (const row of yield* read(after, upTo)) {
              for (const fact of factOf(row)) {
                for (const n of render(fact)) {
                  yield* insert(n, now)
                  written++
                }
              }
            }
          }
          if (after === undefined || upTo > after) yield* setCursor(log, upTo)
        }
        return written
      })),
    enqueue: (n) => Effect.asVoid(Effect.flatMap(Clock.currentTimeMillis, (now) => insert(n, now))),
    due: (now, limit) =>
      sql<{ id: number; endpoint: string; event: string; body_json: string; tries: number }>`SELECT id, endpoint, event,
          body_json, tries FROM usine_notifications WHERE delivered_at IS NULL AND next_at <= ${now} ORDER BY id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((r) => ({ id: r.id, endpoint: r.endpoint, event: r.event, body: JSON.parse(r.body_json) as unknown, tries: r.tries })))
      ),
    delivered: (id, at) => Effect.asVoid(sql`UPDATE usine_notifications SET delivered_at = ${at} WHERE id = ${id}`),
    failed: (id, error, nextAt) =>
      Effect.asVoid(sql`UPDATE usine_notifications SET tries = tries + 1, last_error = ${error.slice(0, 500)},
          next_at = ${nextAt} WHERE id = ${id}`),
    failing: (minTries) =>
      sql<{ endpoint: string; tries: number; last_error: string | null; since: number }>`SELECT endpoint, max(tries) AS tries,
          max(last_error) AS last_error, min(created_at) AS since FROM usine_notifications
          WHERE delivered_at IS NULL AND tries >= ${minTries} GROUP BY endpoint ORDER BY endpoint`.pipe(
        Effect.map((rows) => rows.map((r) => ({ endpoint: r.endpoint, tries: r.tries, lastError: r.last_error ?? "", since: r.since })))
      )
  })
})

export const layer: Layer.Layer<NotificationOutbox, never, SqlClient.SqlClient> = Layer.effect(NotificationOutbox, make)
