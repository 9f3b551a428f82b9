import * as SqlClient from "@effect/sql/SqlClient"
import * as Migrator from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import type { ConfigError } from "effect/ConfigError"
import { Context, Effect, Layer, Option } from "effect"
import { type LedgerLock, type LedgerLocked, layer as ledgerLockLayer } from "./LedgerLock"
import * as LedgerClient from "./LedgerClient"
import { LedgerConnection, makeLedgerConnection } from "./LedgerConnection"
import { LedgerWrites } from "./LedgerWrites"
import ledger0001 from "./migrations/0001_ledger"
import readModelIndexes0002 from "./migrations/0002_read_model_indexes"
import triggerRefusals0003 from "./migrations/0003_trigger_refusals"
import budgets0004 from "./migrations/0004_budgets"
import runNotes0005 from "./migrations/0005_run_notes"
import retryBackoff0006 from "./migrations/0006_retry_backoff_and_queued_events"
import runHeadSha0007 from "./migrations/0007_run_head_sha"
import notifications0008 from "./migrations/0008_notifications"
import writeBack0011 from "./migrations/0011_write_back"
import writeBackCanceled0012 from "./migrations/0012_write_back_canceled_and_notes"
import pullRequestGate0010 from "./migrations/0010_pull_request_gate"
import dropRedundantRunIndex0013 from "./migrations/0013_drop_redundant_run_index"
import attemptPush0014 from "./migrations/0014_attempt_push"
import usageDisagreed0015 from "./migrations/0015_usage_disagreed_notes"
import actingLogin0016 from "./migrations/0016_acting_login"
import audit0017 from "./migrations/0017_audit"

/** Numbered migrations; never edit one that has shipped, add the next number. */
export const migrations = Migrator.fromRecord({
  "0001_ledger": ledger0001,
  "0002_read_model_indexes": readModelIndexes0002,
  "0003_trigger_refusals": triggerRefusals0003,
  "0004_budgets": budgets0004,
  "0005_run_notes": runNotes0005,
  "0006_retry_backoff_and_queued_events": retryBackoff0006,
  "0007_run_head_sha": runHeadSha0007,
  "0008_notifications": notifications0008,
  "0010_pull_request_gate": pullRequestGate0010,
  "0011_write_back": writeBack0011,
  "0012_write_back_canceled_and_notes": writeBackCanceled0012,
  "0013_drop_redundant_run_index": dropRedundantRunIndex0013,
  "0014_attempt_push": attemptPush0014,
  "0015_usage_disagreed_notes": usageDisagreed0015,
  "0016_acting_login": actingLogin0016,
  "0017_audit": audit0017
})

/** How long a statement waits for another connection's write lock before failing. */
export const BUSY_TIMEOUT_MS = 5_000

const prepare = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  yield* sql.unsafe("PRAGMA foreign_keys = ON")
  yield* sql.unsafe("PRAGMA synchronous = NORMAL")
  yield* Migrator.make({})({ loader: migrations, table: "usine_migrations" })
})

type SqlLayerError = ConfigError | SqlError | Migrator.MigrationError

/**
 * The ledger's own client (`LedgerClient`: its connection, its transactions retried while `SQLITE_BUSY` at their
 * start and timed for `LedgerWrites`), with the connection behind it (`LedgerConnection`) for the claim's plain
 * prepared calls.
 */
const ledgerClient = (filename: string) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const { db, sql, withConnection } = yield* LedgerClient.make(filename, yield* LedgerWrites)
      return Context.make(SqlClient.SqlClient, sql).pipe(
        Context.add(LedgerConnection, Option.some(makeLedgerConnection(filename, db, withConnection, yield* LedgerWrites)))
      )
    })
  )

/**
 * The ledger's SQLite client (WAL, busy timeout, foreign keys) with migrations applied, without the
 * single-process lock: for tests and tools that manage exclusion themselves.
 */
export const layerUnlocked = (
  filename: string
): Layer.Layer<SqlClient.SqlClient | LedgerConnection, SqlLayerError> =>
  Layer.effectDiscard(prepare).pipe(Layer.provideMerge(ledgerClient(filename)))

/** The daemon's ledger: takes `<file>.lock` first, so a second process refuses before touching the file. */
export const layer = (
  filename: string
): Layer.Layer<SqlClient.SqlClient | LedgerConnection | LedgerLock, SqlLayerError | LedgerLocked> =>
  layerUnlocked(filename).pipe(Layer.provideMerge(ledgerLockLayer(filename)))
