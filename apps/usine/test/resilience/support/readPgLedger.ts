import { Effect } from "effect"
import { psqlOn } from "@usine/testkit/PgCluster"
import { emptySnapshot, type LedgerSnapshot } from "./LedgerSnapshot"

const rowsOf = (select: string) => `(SELECT coalesce(json_agg(t), '[]'::json) FROM (${select}) t)`

/**
 * The rows of a PostgreSQL ledger the invariants read, in one statement (one snapshot), as `readLedger` reads a
 * SQLite one. Projections and transcripts are left out: the HA suite checks Runs, Attempts and pull requests.
 */
export const readPgLedger = (url: string): Effect.Effect<LedgerSnapshot> =>
  psqlOn(
    url,
    `SELECT json_build_object(
      'events', ${rowsOf("SELECT id, loop, item_key AS \"itemKey\", number, generation, content_hash AS \"contentHash\", status FROM usine_events")},
      'runs', ${rowsOf("SELECT id, event_id AS \"eventId\", loop, item_key AS \"itemKey\", number, state FROM usine_runs")},
      'attempts', ${rowsOf("SELECT id, run_id AS \"runId\", number, outcome_json AS outcome FROM usine_attempts")},
      'transitions', ${rowsOf("SELECT run_id AS \"runId\", from_state AS \"from\", to_state AS \"to\" FROM usine_transitions ORDER BY seq")}
    )`
  ).pipe(
    Effect.map((text): LedgerSnapshot => {
      const rows = JSON.parse(text) as Pick<LedgerSnapshot, "events" | "runs" | "transitions"> & {
        readonly attempts: ReadonlyArray<Omit<LedgerSnapshot["attempts"][number], "outcome"> & { readonly outcome: string | null }>
      }
      return {
        ...emptySnapshot,
        events: rows.events,
        runs: rows.runs,
        transitions: rows.transitions,
        attempts: rows.attempts.map((a) => ({ ...a, outcome: a.outcome === null ? undefined : JSON.parse(a.outcome) }))
      }
    }),
    Effect.orDie
  )
