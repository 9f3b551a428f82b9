import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const OPEN = "('Pending', 'Waiting', 'Queued', 'Running')"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE usine_events (
    id TEXT PRIMARY KEY NOT NULL,
    loop TEXT NOT NULL,
    item_key TEXT NOT NULL,
    repository TEXT NOT NULL,
    number INTEGER,
    generation INTEGER NOT NULL,
    content_hash TEXT,
    submission_json TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('recorded', 'claimed', 'queued', 'ignored', 'blocked'))
  )`,
  `CREATE INDEX usine_events_pair_status ON usine_events (loop, item_key, status, received_at)`,
  `CREATE TABLE usine_ignored_events (
    event_id TEXT PRIMARY KEY NOT NULL REFERENCES usine_events (id),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
  )`,
  `CREATE TABLE usine_runs (
    id TEXT PRIMARY KEY NOT NULL,
    event_id TEXT NOT NULL UNIQUE REFERENCES usine_events (id),
    loop TEXT NOT NULL,
    item_key TEXT NOT NULL,
    repository TEXT NOT NULL,
    number INTEGER,
    generation INTEGER NOT NULL,
    state TEXT NOT NULL
      CHECK (state IN ('Pending', 'Waiting', 'Queued', 'Running', 'Succeeded', 'Failed', 'Canceled')),
    state_json TEXT NOT NULL,
    version INTEGER NOT NULL,
    task TEXT NOT NULL,
    agent TEXT NOT NULL,
    model TEXT,
    approval_required INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    resolved_failure_attempt_id TEXT
  )`,
  // The ledger itself refuses a second open Run of a Loop and Item, whatever the code above it does.
  `CREATE UNIQUE INDEX usine_runs_one_open ON usine_runs (loop, item_key) WHERE state IN ${OPEN}`,
  `CREATE INDEX usine_runs_state ON usine_runs (state, received_at)`,
  `CREATE INDEX usine_runs_budget ON usine_runs (item_key, loop, generation)`,
  `CREATE TABLE usine_attempts (
    id TEXT PRIMARY KEY NOT NULL,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    step TEXT NOT NULL,
    number INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome_json TEXT,
    worker TEXT,
    session TEXT,
    UNIQUE (run_id, step, number)
  )`,
  `CREATE UNIQUE INDEX usine_attempts_one_open ON usine_attempts (run_id) WHERE outcome_json IS NULL`,
  `CREATE TABLE usine_approvals (
    event_id TEXT PRIMARY KEY NOT NULL,
    run_id TEXT NOT NULL UNIQUE REFERENCES usine_runs (id),
    approved_at INTEGER NOT NULL
  )`,
  `CREATE TABLE usine_item_cycle_budgets (
    item_key TEXT PRIMARY KEY NOT NULL,
    repository TEXT NOT NULL,
    generation INTEGER NOT NULL,
    ask_json TEXT,
    reset_pending INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE INDEX usine_item_cycle_budgets_reset ON usine_item_cycle_budgets (repository) WHERE reset_pending = 1`,
  `CREATE TABLE usine_cycle_resets (
    event_id TEXT PRIMARY KEY NOT NULL,
    item_key TEXT NOT NULL,
    ask_id TEXT NOT NULL,
    from_generation INTEGER NOT NULL,
    to_generation INTEGER NOT NULL,
    at INTEGER NOT NULL
  )`,
  `CREATE TABLE usine_loop_runtime (
    loop TEXT PRIMARY KEY NOT NULL,
    paused INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE TABLE usine_item_projections (
    item_key TEXT PRIMARY KEY NOT NULL,
    repository TEXT NOT NULL,
    number INTEGER NOT NULL,
    payload_json TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    observed_at INTEGER NOT NULL
  )`,
  `CREATE INDEX usine_item_projections_repository ON usine_item_projections (repository, number)`,
  `CREATE TABLE usine_poll_cursors (
    repository TEXT PRIMARY KEY NOT NULL,
    watermark TEXT,
    etag TEXT,
    open_pull_requests_json TEXT NOT NULL,
    active_loops TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE TABLE usine_transcript_rows (
    attempt_id TEXT NOT NULL REFERENCES usine_attempts (id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    tool TEXT,
    usage_json TEXT,
    at INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, seq)
  )`,
  `CREATE TABLE usine_transitions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    from_state TEXT,
    to_state TEXT NOT NULL,
    actor TEXT NOT NULL CHECK (actor IN ('engine', 'operator', 'trigger')),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
  )`,
  `CREATE INDEX usine_transitions_run ON usine_transitions (run_id, seq)`,
  `CREATE TRIGGER usine_transitions_no_update BEFORE UPDATE ON usine_transitions
    BEGIN SELECT RAISE(ABORT, 'usine_transitions is append-only'); END`,
  `CREATE TRIGGER usine_transitions_no_delete BEFORE DELETE ON usine_transitions
    BEGIN SELECT RAISE(ABORT, 'usine_transitions is append-only'); END`
]

/** The ledger's first schema: Events, Runs, Attempts, budgets, projections, transcripts, transitions. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
