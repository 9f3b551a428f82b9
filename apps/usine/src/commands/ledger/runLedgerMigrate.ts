import { FileSystem } from "@effect/platform"
import { Clock, Console, Effect, Option, Redacted } from "effect"
import { shownUrl } from "@usine/core/config/LedgerConfig"
import { migrateLedger } from "@usine/store/migrateLedger"
import { pathFrom } from "../../daemon/StartupPlan"
import { startupFailed } from "../../daemon/startupFailed"
import { loadConfig } from "../../loadConfig"

interface MigrateOptions {
  readonly config: string
  readonly from: Option.Option<string>
  readonly to: string
  readonly passwordFile: Option.Option<string>
  readonly verify: boolean
}

const count = (n: number) => n.toLocaleString("en-US")

/** What `usine ledger migrate` does once its options are parsed; loaded only when it runs (ADR 0095). */
export const runLedgerMigrate = (options: MigrateOptions) =>
  Effect.gen(function*() {
    if (!/^postgres(ql)?:\/\//.test(options.to)) {
      return yield* Effect.fail({ message: `--to: expected a postgres:// URL, got ${shownUrl(options.to)}` })
    }
    const configured = Option.isSome(options.from) ? undefined : (yield* loadConfig(options.config)).ledger
    if (configured?._tag === "postgres") {
      return yield* Effect.fail({ message: `--from: ${options.config}'s ledger is already PostgreSQL; name the SQLite file to copy` })
    }
    const from = Option.isSome(options.from) ? options.from.value : pathFrom(options.config, configured?.file ?? "")
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(from))) return yield* Effect.fail({ message: `--from: no SQLite ledger at ${from}` })
    const password = Option.isSome(options.passwordFile)
      ? Redacted.make((yield* fs.readFileString(options.passwordFile.value)).trim())
      : undefined
    const started = yield* Clock.currentTimeMillis
    yield* Console.log(`${options.verify ? "comparing" : "copying"} ${from} ${options.verify ? "with" : "into"} ${shownUrl(options.to)}`)
    const compared = yield* migrateLedger({
      from,
      to: { url: Redacted.make(options.to), password },
      verify: options.verify,
      onCopied: (table, rows) => Console.log(`  ${table.padEnd(28)} ${count(rows).padStart(12)} rows copied`)
    })
    const rows = compared.reduce((sum, table) => sum + table.rows, 0)
    const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
    yield* Console.log(
      `verified: ${compared.length} tables, ${count(rows)} rows, each table's rows and digest equal on both engines (${seconds.toFixed(1)} s)`
    )
  }).pipe(
    Effect.catchAll((error) => startupFailed("ledger migrate")(error as { readonly _tag?: string; readonly message: string }))
  )
