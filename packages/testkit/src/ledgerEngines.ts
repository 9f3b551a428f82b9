import { describe } from "@effect/vitest"
import type * as SqlClient from "@effect/sql/SqlClient"
import { join } from "node:path"
import { Effect, Layer, Redacted } from "effect"
import type { LedgerConnection } from "@usine/store/LedgerConnection"
import * as PgSql from "@usine/store/PgSql"
import * as Sql from "@usine/store/Sql"
import { freshPgDatabase, postgresMissing } from "./PgCluster"
import { scopedTempDir } from "./scopedTempDir"

/** An engine the ledger runs on, and a fresh, migrated ledger on it each time its layer is built. */
interface LedgerEngine {
  readonly name: "sqlite" | "postgres"
  readonly sql: Layer.Layer<SqlClient.SqlClient | LedgerConnection>
}

/** A real SQLite file in a temp dir, lock taken. */
const sqlite: LedgerEngine = {
  name: "sqlite",
  sql: Layer.unwrapScoped(Effect.map(scopedTempDir("usine-store-"), (dir) => Sql.layer(join(dir, "ledger.sqlite")))).pipe(Layer.orDie)
}

/** A fresh database on the test process's throwaway PostgreSQL cluster. */
const postgres: LedgerEngine = {
  name: "postgres",
  sql: Layer.unwrapScoped(Effect.map(freshPgDatabase, (url) => PgSql.layer({ url: Redacted.make(url) }))).pipe(Layer.orDie)
}

// Under CI a missing PostgreSQL fails the PostgreSQL half (its layer cannot start); elsewhere it skips, saying why.
const skipPostgres = postgresMissing !== undefined && process.env["CI"] !== "true"

/** The store's contract: `body` once per engine, each in its own `describe` named after the engine. */
export const describeEngines = (name: string, body: (engine: LedgerEngine) => void) => {
  describe(`${name} [sqlite]`, () => body(sqlite))
  describe.skipIf(skipPostgres)(`${name} [postgres]${skipPostgres ? ` (skipped: ${postgresMissing})` : ""}`, () => body(postgres))
}
