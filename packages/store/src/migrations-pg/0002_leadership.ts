import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Leadership of a PostgreSQL ledger shared by several daemons (ADR 0109): one row naming the node that leads, its
 * epoch and its lease. Every other table of the ledger is fenced: a statement that writes to it runs
 * `usine_fenced()` first, which takes the leadership row FOR SHARE and refuses (SQLSTATE UF001) unless the
 * connection's `application_name` is the leader's node. A takeover's UPDATE of that row waits for the writes in
 * flight to end, so no write of a deposed leader commits after the takeover; a leader's transaction left idle
 * (its process paused) is ended by the server after 5 s, so it cannot hold a takeover back (the daemon never holds
 * a transaction across I/O, so only a paused process sits idle in one). With
 * no row (one process: tests, `usine ledger migrate`), nothing is fenced.
 */
const statements: ReadonlyArray<string> = [
  `CREATE TABLE usine_leadership (
      id SMALLINT PRIMARY KEY CHECK (id = 1),
      node TEXT NOT NULL,
      epoch BIGINT NOT NULL,
      acquired_at TIMESTAMPTZ NOT NULL,
      expires_at TIMESTAMPTZ NOT NULL
    )`,
  `CREATE FUNCTION usine_fenced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      leader usine_leadership%ROWTYPE;
    BEGIN
      SELECT * INTO leader FROM usine_leadership WHERE id = 1 FOR SHARE;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      IF leader.node IS DISTINCT FROM current_setting('application_name') THEN
        RAISE EXCEPTION 'usine: this node (%) does not lead the ledger: % does, epoch %',
          current_setting('application_name'), leader.node, leader.epoch
          USING ERRCODE = 'UF001';
      END IF;
      PERFORM set_config('idle_in_transaction_session_timeout', '5000', true);
      RETURN NULL;
    END
  $$`,
  `DO $$
    DECLARE
      t TEXT;
    BEGIN
      FOR t IN
        SELECT tablename FROM pg_tables
        WHERE schemaname = current_schema() AND tablename LIKE 'usine\\_%' AND tablename <> 'usine_leadership'
          AND tablename NOT LIKE 'usine\\_migrations%'
      LOOP
        EXECUTE format(
          'CREATE TRIGGER usine_fenced BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION usine_fenced()',
          t
        );
      END LOOP;
    END
  $$`
]

/** The leadership row and the fence on every table of the ledger (ADR 0109). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
