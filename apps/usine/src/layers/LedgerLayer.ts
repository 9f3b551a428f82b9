import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { Effect, Layer } from "effect"
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
 * The ledger for the daemon's lifetime: its folder created, the lock taken (a second daemon on the same file is
 * refused), migrations run, then the stores on it: Runs, Items, brakes, trigger refusals, the audit, the Board's read model, the
 * notification and write-back outboxes.
 */
export const LedgerLayer = (file: string) =>
  Layer.mergeAll(
    SqlRunStore.layer,
    SqlItemStore.layer,
    SqlBrakeStore.layer,
    SqlTriggerRefusals.layer,
    SqlAuditLog.layer,
    ReadModel.layer,
    NotificationOutbox.layer,
    WriteBackOutbox.layer
  ).pipe(
    Layer.provideMerge(Sql.layer(file)),
    Layer.provide(Layer.effectDiscard(Effect.sync(() => mkdirSync(dirname(file), { recursive: true }))))
  )
