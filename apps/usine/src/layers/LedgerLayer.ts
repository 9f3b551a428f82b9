import { mkdirSync, readFileSync } from "node:fs"
import { dirname } from "node:path"
import { Effect, Layer, Redacted } from "effect"
import type { LedgerPlace } from "@usine/core/config/LedgerConfig"
import * as SqlAuditLog from "@usine/store/SqlAuditLog"
import * as NotificationOutbox from "@usine/store/NotificationOutbox"
import * as ReadModel from "@usine/store/ReadModel"
import * as Sql from "@usine/store/Sql"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import * as WriteBackOutbox from "@usine/store/WriteBackOutbox"

/**
 * SQLite: its folder created, the lock taken (a second daemon on the same file is refused). PostgreSQL: connected,
 * its client loaded only then (a SQLite start does not read it, ADR 0095).
 */
const ledgerSql = (ledger: LedgerPlace, node: string) =>
  ledger._tag === "sqlite"
    ? Sql.layer(ledger.file).pipe(
      Layer.provide(Layer.effectDiscard(Effect.sync(() => mkdirSync(dirname(ledger.file), { recursive: true }))))
    )
    : Layer.unwrapEffect(Effect.map(Effect.promise(() => import("@usine/store/PgSql")), (PgSql) =>
      PgSql.layer({
        url: ledger.url,
        password: ledger.passwordFile === undefined ? undefined : Redacted.make(readFileSync(ledger.passwordFile, "utf8").trim()),
        node
      })
    ))

/**
 * The ledger for the daemon's lifetime (SQLite or PostgreSQL, ADR 0106), migrations run, then the stores on it: Runs, Items, brakes, trigger refusals, the audit, the Board's read model, the
 * notification and write-back outboxes.
 */
export const LedgerLayer = (ledger: LedgerPlace, node = "usine") =>
  Layer.mergeAll(
    SqlRunStore.layer,
    SqlItemStore.layer,
    SqlBrakeStore.layer,
    SqlTriggerRefusals.layer,
    SqlAuditLog.layer,
    ReadModel.layer,
    NotificationOutbox.layer,
    WriteBackOutbox.layer
  ).pipe(Layer.provideMerge(ledgerSql(ledger, node)))
