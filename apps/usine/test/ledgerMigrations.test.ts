import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Sql from "@usine/store/Sql"
import { SqliteDatabase } from "@usine/store/SqliteDatabase"
import { version } from "../package.json"
import { checkLedgerMigrations } from "../src/doctor/checkLedgerMigrations"
import { knownMigrations, ledgerMigrations } from "../src/ledger/LedgerMigrations"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

/** A real ledger: the store's layer creates the file and applies every migration, then closes it. */
const migratedLedger = (file: string) => Effect.scoped(Layer.build(Sql.layerUnlocked(file))).pipe(Effect.orDie)

const edit = (file: string, statement: string) =>
  Effect.sync(() => {
    const db = SqliteDatabase.open(file, { fileMustExist: true })
    db.exec(statement)
    db.close()
  })

describe("the ledger's migrations against this usine's (issue 34)", () => {
  it.scoped("a fresh ledger is current; one a migration short is behind; one with a migration from the future is ahead", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const file = join(dir, "ledger.db")
      const known = yield* knownMigrations
      const latest = known.at(-1)!
      const latestLabel = `${String(latest.id).padStart(4, "0")}_${latest.name}`

      const none = yield* ledgerMigrations(file)
      assert.deepStrictEqual(none, { _tag: "NoLedger", known: known.length })
      assert.match((yield* checkLedgerMigrations(file)).text, /does not exist yet; usine up creates it with \d+ migrations$/)

      yield* migratedLedger(file)
      assert.deepStrictEqual(yield* ledgerMigrations(file), { _tag: "Current", latest: latestLabel })
      assert.deepStrictEqual(yield* checkLedgerMigrations(file), {
        status: "pass",
        text: `ledger: ${file} is at ${latestLabel}, the latest migration usine ${version} knows`
      })

      // As an older usine left it: the latest migration not applied (its row taken out; the migrator's own tests show
      // it applies what is numbered above the latest row).
      yield* edit(file, `DELETE FROM usine_migrations WHERE migration_id = ${latest.id}`)
      const behind = yield* ledgerMigrations(file)
      assert.strictEqual(behind._tag, "Behind")
      assert.deepStrictEqual(behind._tag === "Behind" ? behind.pending : [], [latestLabel])
      assert.match((yield* checkLedgerMigrations(file)).text, new RegExp(`usine up applies 1 migration at its start \\(${latestLabel}\\)$`))
      yield* edit(file, `INSERT INTO usine_migrations (migration_id, name) VALUES (${latest.id}, '${latest.name}')`)
      assert.strictEqual((yield* ledgerMigrations(file))._tag, "Current")

      // A newer usine's ledger: a migration this version has never heard of.
      yield* edit(file, "INSERT INTO usine_migrations (migration_id, name) VALUES (9001, 'from_a_newer_usine')")
      assert.deepStrictEqual(yield* ledgerMigrations(file), { _tag: "Ahead", unknown: ["9001_from_a_newer_usine"] })
      const line = yield* checkLedgerMigrations(file)
      assert.strictEqual(line.status, "fail")
      assert.include(line.text, `was migrated by a newer usine (9001_from_a_newer_usine, unknown to usine ${version}); usine up refuses it`)
    }))

  it.scoped("`usine up` refuses a ledger a newer usine migrated, before it asks GitHub anything, and leaves it as it was", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const file = join(dir, "state", "ledger.db")
      yield* Effect.sync(() => writeFileSync(join(dir, "usine.yaml"), "github:\n  token: not-a-real-token\n  api_url: http://127.0.0.1:9\nrepositories: [acme/widgets]\nledger: state/ledger.db\n"))
      yield* Effect.sync(() => mkdirSync(join(dir, "state")))
      yield* migratedLedger(file)
      yield* edit(file, "INSERT INTO usine_migrations (migration_id, name) VALUES (9001, 'from_a_newer_usine')")
      const up = yield* startUsine(dir, ["up"])
      assert.strictEqual(yield* up.exit("60 seconds"), 1)
      assert.strictEqual(
        up.stderr().trim(),
        `usine up: the ledger ${file} was migrated by a newer usine (9001_from_a_newer_usine, unknown to usine ${version}): upgrade usine to run on it`
      )
      assert.deepStrictEqual(yield* ledgerMigrations(file), { _tag: "Ahead", unknown: ["9001_from_a_newer_usine"] })
    }), 60_000)
})
