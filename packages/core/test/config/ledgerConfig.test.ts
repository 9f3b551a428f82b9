import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { shownLedger } from "@usine/core/config/LedgerConfig"
import { parseConfig } from "@usine/core/config/parseConfig"

const withLedger = (ledger: string) => `repositories: [acme/widgets]\nledger: ${ledger}\n`

describe("ledger: a SQLite file or a PostgreSQL database (issue 36)", () => {
  it.effect("a path is a SQLite file", () =>
    Effect.gen(function*() {
      const config = yield* parseConfig(withLedger("state/usine.db"), { env: {} })
      assert.deepStrictEqual(config.ledger, { _tag: "sqlite", file: "state/usine.db" })
    }))

  it.effect("a postgres:// URL is PostgreSQL, kept redacted and shown without its password", () =>
    Effect.gen(function*() {
      const config = yield* parseConfig(withLedger("postgres://usine:hunter2-pw@db.internal:5433/usine"), { env: {} })
      assert.strictEqual(config.ledger._tag, "postgres")
      if (config.ledger._tag !== "postgres") return
      assert.strictEqual(Redacted.value(config.ledger.url), "postgres://usine:hunter2-pw@db.internal:5433/usine")
      assert.strictEqual(config.ledger.passwordFile, undefined)
      assert.notInclude(JSON.stringify(config) + String(config.ledger.url), "hunter2-pw")
      assert.strictEqual(shownLedger(config.ledger), "postgres://usine:***@db.internal:5433/usine")
    }))

  it.effect("{url, password_file} keeps the password out of the URL and out of usine.yaml", () =>
    Effect.gen(function*() {
      const config = yield* parseConfig(withLedger("{url: 'postgresql://usine@db/usine', password_file: /run/secrets/pg}"), { env: {} })
      assert.deepStrictEqual(
        config.ledger._tag === "postgres" ? [Redacted.value(config.ledger.url), config.ledger.passwordFile] : [],
        ["postgresql://usine@db/usine", "/run/secrets/pg"]
      )
    }))

  it.effect("a URL of another database is refused naming ledger.url, without repeating the URL", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(parseConfig(withLedger("{url: 'mysql://root:hunter2-pw@db/usine'}"), { env: {}, file: "usine.yaml" }))
      assert.match(error.message, /^usine\.yaml:2:\d+ ledger\.url: expected a postgres:\/\/ or postgresql:\/\/ URL$/)
      assert.notInclude(error.message, "hunter2-pw")
    }))

  it.effect("an unknown key is refused, naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(parseConfig(withLedger("{url: 'postgres://db/usine', password: hunter2-pw}"), { env: {}, file: "usine.yaml" }))
      assert.include(error.message, "ledger.password")
      assert.notInclude(error.message, "hunter2-pw")
    }))
})
