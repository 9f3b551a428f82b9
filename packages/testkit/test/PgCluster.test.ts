import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { freshPgDatabase, postgresMissing, psql, sharedPgCluster, startPgCluster } from "@usine/testkit/PgCluster"

// Under CI a missing PostgreSQL fails these tests; elsewhere they skip, saying why.
const skip = postgresMissing !== undefined && process.env["CI"] !== "true"

describe.skipIf(skip)(`PgCluster${skip ? ` (skipped: ${postgresMissing})` : ""}`, () => {
  it.live("starts a throwaway cluster, and stops it and removes its folder with the scope", () =>
    Effect.gen(function* () {
      const { cluster, folders } = yield* Effect.scoped(
        Effect.gen(function* () {
          const cluster = yield* startPgCluster
          assert.strictEqual(yield* psql(cluster, "SELECT 1 + 1"), "2")
          return { cluster, folders: yield* psql(cluster, "SHOW data_directory") }
        })
      )
      assert.isFalse(fs.existsSync(folders))
      const after = yield* Effect.either(psql(cluster, "SELECT 1"))
      assert.strictEqual(after._tag, "Left")
    }))

  it.live("gives each scope its own database on the process's one cluster, dropped afterwards", () =>
    Effect.gen(function* () {
      const cluster = yield* sharedPgCluster
      const [first, second] = yield* Effect.scoped(
        Effect.gen(function* () {
          const first = yield* freshPgDatabase
          const second = yield* freshPgDatabase
          const names = yield* psql(cluster, "SELECT string_agg(datname, ',') FROM pg_database WHERE datname LIKE 'usine_test_%'")
          assert.include(names, first.split("/").at(-1)!)
          assert.include(names, second.split("/").at(-1)!)
          return [first, second]
        })
      )
      assert.notStrictEqual(first, second)
      assert.strictEqual(yield* psql(cluster, "SELECT count(*) FROM pg_database WHERE datname LIKE 'usine_test_%'"), "0")
      assert.strictEqual(yield* sharedPgCluster, cluster)
    }))
})
