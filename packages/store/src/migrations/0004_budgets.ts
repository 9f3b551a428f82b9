import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // The newest usage total of each Attempt: a session total that replaces, never adds to, the one before.
  `CREATE TABLE usine_attempt_usage (
    attempt_id TEXT PRIMARY KEY NOT NULL REFERENCES usine_attempts (id),
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    loop TEXT NOT NULL,
    repository TEXT NOT NULL,
    agent TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cost_usd REAL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE INDEX usine_attempt_usage_run ON usine_attempt_usage (run_id)`,
  // Each usage row's increase over the Attempt's previous total, counted on the UTC day it arrived.
  `CREATE TABLE usine_usage_days (
    day TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('global', 'loop', 'repository')),
    name TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cost_usd REAL,
    PRIMARY KEY (day, scope, name)
  )`,
  // An operator's raise of a daily cap, for that day only; raises add up.
  `CREATE TABLE usine_cap_raises (
    day TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('global', 'loop')),
    name TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (day, scope, name)
  )`,
  // A provider's quota reset: no new Attempt of the Agent before `until`.
  `CREATE TABLE usine_agent_holds (
    agent TEXT PRIMARY KEY NOT NULL,
    until INTEGER NOT NULL,
    reason TEXT NOT NULL,
    attempt_id TEXT NOT NULL,
    at INTEGER NOT NULL
  )`,
  // Per Loop and Item: the head the last progressing Attempt left, the no-progress streak since, and the park.
  `CREATE TABLE usine_item_progress (
    loop TEXT NOT NULL,
    item_key TEXT NOT NULL,
    last_head TEXT,
    last_pull_request INTEGER,
    streak INTEGER NOT NULL,
    evidence_json TEXT NOT NULL,
    parked_at INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (loop, item_key)
  )`,
  `CREATE INDEX usine_item_progress_parked ON usine_item_progress (parked_at) WHERE parked_at IS NOT NULL`,
  // Pull requests a Loop opened, for its WIP limit; `closed_at` once the Item projection shows them merged or closed.
  `CREATE TABLE usine_loop_pull_requests (
    loop TEXT NOT NULL,
    repository TEXT NOT NULL,
    number INTEGER NOT NULL,
    run_id TEXT NOT NULL REFERENCES usine_runs (id),
    recorded_at INTEGER NOT NULL,
    closed_at INTEGER,
    PRIMARY KEY (loop, repository, number)
  )`,
  `CREATE INDEX usine_loop_pull_requests_open ON usine_loop_pull_requests (loop) WHERE closed_at IS NULL`,
  // Why an open Run's next Attempt waits; read only while the Run is open.
  `CREATE TABLE usine_run_holds (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES usine_runs (id),
    kind TEXT NOT NULL CHECK (kind IN ('AgentQuota', 'DailyCap', 'NoProgress', 'OpenPullRequests')),
    reason TEXT NOT NULL,
    until INTEGER,
    since INTEGER NOT NULL
  )`
]

/** Budgets and brakes: usage per Attempt and per day, cap raises, Agent quota holds, no-progress parks, WIP, holds. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
