import { describe } from "@effect/vitest"
import { beforeAll } from "vitest"
import type * as SqlClient from "@effect/sql/SqlClient"
import { join } from "node:path"
import { Effect, Layer, Redacted, type Scope } from "effect"
import type { LedgerConnection } from "@usine/store/LedgerConnection"
import * as PgSql from "@usine/store/PgSql"
import * as Sql from "@usine/store/Sql"
import { freshPgDatabaseFrom, postgresMissing, psql, sharedPgCluster } from "./PgCluster"
import { scopedTempDir } from "./scopedTempDir"

type LedgerSql = Layer.Layer<SqlClient.SqlClient | LedgerConnection>

/** An engine the ledger runs on. */
export interface LedgerEngine {
  readonly name: "sqlite" | "postgres"
  /** Where a new ledger can live for the scope: a file in a fresh temp dir, or a fresh database. */
  readonly place: Effect.Effect<string, never, Scope.Scope>
  /** The ledger at `place`, migrations applied; building it again opens the same ledger (a restart). */
  readonly open: (place: string) => LedgerSql
  /** A fresh, migrated ledger each time this layer is built. */
  readonly sql: LedgerSql
}

const engine = (name: LedgerEngine["name"], place: LedgerEngine["place"], open: LedgerEngine["open"]): LedgerEngine => ({
  name,
  place,
  open,
  sql: Layer.unwrapScoped(Effect.map(place, open))
})

/** A real SQLite file in a temp dir, lock taken. */
export const sqlite: LedgerEngine = engine(
  "sqlite",
  Effect.map(scopedTempDir("usine-store-"), (dir) => join(dir, "ledger.sqlite")),
  (file) => Sql.layer(file).pipe(Layer.orDie)
)

const openPg = (url: string) => PgSql.layer({ url: Redacted.make(url) }).pipe(Layer.orDie)

/** One database per test process with the ledger's migrations applied, closed again: what fresh ledgers copy. */
let template: Promise<string> | undefined
const TEMPLATE = `usine_template_${process.pid}`
const migratedTemplate = Effect.suspend(() => {
  template ??= Effect.runPromise(
    Effect.gen(function* () {
      const cluster = yield* sharedPgCluster
      yield* psql(cluster, `CREATE DATABASE ${TEMPLATE}`)
      yield* Effect.scoped(Layer.build(openPg(cluster.url(TEMPLATE))))
      return TEMPLATE
    }).pipe(Effect.orDie)
  )
  const started = template
  return Effect.promise(() => started)
})

/** A fresh database on the test process's throwaway PostgreSQL cluster, a copy of a migrated template. */
const postgres: LedgerEngine = engine(
  "postgres",
  Effect.flatMap(migratedTemplate, freshPgDatabaseFrom).pipe(Effect.orDie),
  openPg
)

// Under CI a missing PostgreSQL fails the PostgreSQL half (its layer cannot start); elsewhere it skips, saying why.
const skipPostgres = postgresMissing !== undefined && process.env["CI"] !== "true"

/** The store's contract: `body` once per engine, each in its own `describe` named after the engine. */
export const describeEngines = (name: string, body: (engine: LedgerEngine) => void) => {
  describe(`${name} [sqlite]`, () => body(sqlite))
  describe.skipIf(skipPostgres)(`${name} [postgres]${skipPostgres ? ` (skipped: ${postgresMissing})` : ""}`, () => {
    // The cluster and the migrated template, once per test process, outside any test's time.
    beforeAll(() => Effect.runPromise(migratedTemplate), 60_000)
    body(postgres)
  })
}
