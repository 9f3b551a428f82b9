import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements: ReadonlyArray<string> = [
  // One row per action a person (or the Board token, `login` NULL) took on the Board, refusals included, and per push
  // or pull request an agent made (`actor` agent, `login` the person who let the work out): the Audit page and
  // `usine audit` read it newest first by (at, id), each filter with its own index (ADR 0107).
  `CREATE TABLE usine_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL CHECK (actor IN ('operator', 'agent')),
    login TEXT,
    action TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('done', 'unchanged', 'refused')),
    repository TEXT,
    loop TEXT,
    run_id TEXT,
    item_key TEXT,
    detail TEXT,
    result TEXT
  )`,
  `CREATE INDEX usine_audit_at ON usine_audit (at, id)`,
  `CREATE INDEX usine_audit_login ON usine_audit (login, at, id)`,
  `CREATE INDEX usine_audit_repository ON usine_audit (repository, at, id)`,
  `CREATE INDEX usine_audit_action ON usine_audit (action, at, id)`,
  `CREATE INDEX usine_audit_loop ON usine_audit (loop, at, id)`,
  `CREATE TRIGGER usine_audit_no_update BEFORE UPDATE ON usine_audit
    BEGIN SELECT RAISE(ABORT, 'usine_audit is append-only'); END`,
  `CREATE TRIGGER usine_audit_no_delete BEFORE DELETE ON usine_audit
    BEGIN SELECT RAISE(ABORT, 'usine_audit is append-only'); END`,
  // The operators' transitions so far, as the actions they were; rows before migration 0016 have no login and read
  // as `operator`.
  `INSERT INTO usine_audit (at, actor, login, action, outcome, repository, loop, run_id, item_key, detail, result)
    SELECT t.at, 'operator', t.login,
      CASE
        WHEN t.reason = 'approved' THEN 'approve'
        WHEN t.reason = 'retried' THEN 'retry'
        WHEN t.reason = 'edited and retried' THEN 'editAndRetry'
        WHEN t.reason LIKE 'pull request approved%' THEN 'approvePullRequest'
        WHEN t.reason LIKE 'changes requested%' THEN 'requestChanges'
        WHEN t.to_state = 'Canceled' THEN 'cancel'
        ELSE 'transition'
      END,
      'done', r.repository, r.loop, r.id, r.item_key, NULL, t.reason
    FROM usine_transitions t JOIN usine_runs r ON r.id = t.run_id
    WHERE t.actor = 'operator'
    ORDER BY t.seq`
]

/** The audit of people's actions on the Board, with the operators' earlier transitions copied in (ADR 0107). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
