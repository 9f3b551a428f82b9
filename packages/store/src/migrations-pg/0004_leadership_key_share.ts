import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A leader's renewal no longer waits for its own writes (ADR 0109, session 14). The fence of 0002 took the
 * leadership row FOR SHARE, which the renewal's UPDATE conflicts with: on a busy, loaded leader a renewal queued
 * behind the writes in flight, and the node judged itself deposed ("not renewed for 2010 ms") while it was
 * healthy. Now the fence takes FOR KEY SHARE, and `epoch` has a unique index, which makes it a key column to
 * PostgreSQL's row locks: a takeover (its UPDATE raises the epoch) takes FOR UPDATE and still waits for every
 * write in flight, while a renewal (it moves `expires_at` only) takes FOR NO KEY UPDATE and waits for none.
 */
const statements: ReadonlyArray<string> = [
  `CREATE UNIQUE INDEX usine_leadership_epoch ON usine_leadership (epoch)`,
  `CREATE OR REPLACE FUNCTION usine_fenced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      leader usine_leadership%ROWTYPE;
    BEGIN
      SELECT * INTO leader FROM usine_leadership WHERE id = 1 FOR KEY SHARE;
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
  $$`
]

/** The fence's lock weakened to FOR KEY SHARE, with the epoch a key column (ADR 0109). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
